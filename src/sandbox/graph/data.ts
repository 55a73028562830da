import type { Row } from './model.js';
import { mulberry32 } from '../prng.js';

/** The deterministic seed: every run and every reset starts from exactly these entities. */
export interface Seed {
  services: Row[];
  /** All issues, newest change first. */
  issues: Row[];
  messages: Row[];
  /** Issue id → id of the service it belongs to. */
  owner: Map<string, string>;
  /** Service id → the two-letter prefix of its issue ids. */
  prefixes: Map<string, string>;
}

/** Seed entities carry the first etag generation. */
export const etagOf = (id: string, revision: number): string =>
  `W/"${Buffer.from(`${id}:${revision}`).toString('base64')}"`;

const prng = mulberry32;

// [id, service name, issue id prefix, number of issues]: uneven on purpose (paging, empty services).
const SERVICES: [string, string, string, number][] = [
  ['Exchange', 'Exchange Online', 'EX', 142],
  ['OrgLiveID', 'Identity Service', 'ID', 22],
  ['OSDPPlatform', 'Microsoft 365 suite', 'MO', 48],
  ['microsoftteams', 'Microsoft Teams', 'TM', 118],
  ['SharePoint', 'SharePoint Online', 'SP', 64],
  ['OneDriveForBusiness', 'OneDrive for Business', 'OD', 30],
  ['Intune', 'Microsoft Intune', 'IT', 28],
  ['O365Client', 'Microsoft 365 Apps', 'OP', 20],
  ['PowerBIcom', 'Power BI', 'PB', 18],
  ['DynamicsCRM', 'Dynamics 365 Apps', 'CR', 16],
  ['MicrosoftFlow', 'Power Automate', 'FL', 12],
  ['PowerApps', 'Power Apps', 'PA', 10],
  ['Yammer', 'Viva Engage', 'YA', 9],
  ['Lync', 'Skype for Business', 'LY', 8],
  ['MicrosoftDefenderATP', 'Microsoft Defender for Endpoint', 'WD', 8],
  ['Planner', 'Planner', 'PL', 7],
  ['MicrosoftForms', 'Microsoft Forms', 'FM', 6],
  ['OfficeOnline', 'Office for the web', 'OL', 6],
  ['Stream', 'Microsoft Stream', 'ST', 5],
  ['Bookings', 'Microsoft Bookings', 'BK', 4],
  ['cloudappsecurity', 'Microsoft Defender for Cloud Apps', 'CA', 4],
  ['MicrosoftPurview', 'Microsoft Purview', 'PV', 4],
  ['Viva', 'Microsoft Viva', 'VI', 3],
  ['Whiteboard', 'Microsoft Whiteboard', 'WB', 3],
  ['Windows', 'Windows', 'WN', 3],
  ['Microsoft365Defender', 'Microsoft 365 Defender', 'DZ', 3],
  ['Project', 'Project for the web', 'PJ', 2],
  ['SwayEnterprise', 'Sway', 'SW', 2],
  ['MobileDeviceManagement', 'Mobile Device Management for Office 365', 'MM', 2],
  ['MicrosoftCopilotM365', 'Microsoft Copilot (Microsoft 365)', 'CP', 2],
  ['ToDo', 'Microsoft To Do', 'TD', 1],
  ['Loop', 'Microsoft Loop', 'LP', 1],
  ['AzureATP', 'Microsoft Defender for Identity', 'AT', 1],
  ['PowerBIPremium', 'Power BI Premium', 'PR', 0],
  ['Clipchamp', 'Clipchamp', 'CC', 0],
  ['DynamicsNAV', 'Dynamics 365 Business Central', 'BC', 0],
  ['Kaizala', 'Microsoft Kaizala', 'KZ', 0],
  ['PowerVirtualAgents', 'Microsoft Copilot Studio', 'VA', 0],
  ['Access', 'Access for the web', 'AC', 0],
];

// [featureGroup, feature] per service; others fall back to generic ones named after the service.
const FEATURES: Record<string, [string, string][]> = {
  Exchange: [
    ['E-Mail and calendar access', 'Outlook on the web'],
    ['E-Mail and calendar access', 'Exchange ActiveSync (EAS)'],
    ['E-Mail timely delivery', 'E-Mail timely delivery'],
    ['Management and Provisioning', 'Tenant Administration (Provisioning, Remote PowerShell)'],
    ['Management and Provisioning', 'Exchange admin center'],
    ['Networking Issues', 'Networking'],
  ],
  microsoftteams: [
    ['Microsoft Teams', 'Teams Components'],
    ['Microsoft Teams', 'Chat'],
    ['Microsoft Teams', 'Meetings'],
    ['Microsoft Teams', 'Calling'],
    ['Microsoft Teams', 'Teams Rooms'],
  ],
  SharePoint: [
    ['SharePoint Features', 'Search'],
    ['SharePoint Features', 'Sites and Pages'],
    ['SharePoint Features', 'Lists and Libraries'],
    ['SharePoint Features', 'Sharing'],
    ['Tenant Admin', 'SharePoint admin center'],
  ],
  OSDPPlatform: [
    ['Administration', 'Microsoft 365 admin center'],
    ['Portal', 'Sign-in'],
    ['Management and Provisioning', 'Licensing'],
    ['Administration', 'Service health'],
  ],
  OrgLiveID: [
    ['Authentication and Sign In', 'Sign-In'],
    ['Authentication and Sign In', 'Multi-Factor Authentication'],
    ['Administration', 'Conditional Access'],
  ],
  Intune: [
    ['Device Management', 'Policy deployment'],
    ['Device Management', 'Enrollment'],
    ['Apps', 'App deployment'],
  ],
};

const TITLES = [
  'Users may be unable to access {feature}',
  'Users may experience delays when using {feature}',
  'Admins are unable to manage {feature} settings',
  "Some users can't sign in to {service}",
  'Users may see errors when opening {feature}',
  'Intermittent failures when using {feature}',
  'Users may not receive notifications from {service}',
  'Admins may see incorrect data in {feature} reports',
  'Some users are experiencing degraded performance in {feature}',
  'Users may be unable to search for content in {service}',
  "Users can't save changes made in {feature}",
  'Some users may be unable to join {service} from mobile devices',
];
const IMPACTS = [
  'Users may be unable to access {feature} in {service}.',
  'Admins attempting to use {feature} may receive an error.',
  'Users may experience latency when interacting with {feature}.',
  'Some users may intermittently be unable to use {feature}.',
  'Users in North America may be unable to use {feature}.',
  'Users may see stale or missing data in {feature}.',
];
const RESOLVED_STATUS = [
  'ServiceRestored',
  'ServiceRestored',
  'ServiceRestored',
  'ServiceRestored',
  'PostIncidentReviewPublished',
  'FalsePositive',
];
const OPEN_STATUS = [
  'Investigating',
  'ServiceDegradation',
  'ServiceInterruption',
  'RestoringService',
  'ExtendedRecovery',
  'VerifyingService',
  'InvestigationSuspended',
];
const CHANGES = [
  'New meeting experience rolling out',
  'Retirement of a legacy admin setting',
  'Updates to sharing settings',
  'Service health dashboard improvements',
  'Plan for change: end of support for older clients',
  'New reporting views for admins',
  'Feature update: improved search results',
  'Data residency commitments extended',
  'Changes to default retention behaviour',
  'New admin controls for external access',
];
const TAGS = [
  'Feature update',
  'User impact',
  'Admin impact',
  'Retirement',
  'New feature',
  'Updated message',
  'Data privacy',
  'Change management',
];

const DAY = 86_400_000;
const EPOCH = Date.UTC(2024, 5, 1);
const iso = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
/** Graph's lastModifiedDateTime carries two fractional digits, e.g. `2020-11-20T17:56:31.39Z`. */
const isoFraction = (ms: number, rnd: () => number): string =>
  iso(ms).replace('Z', `.${String(Math.floor(rnd() * 90) + 10)}Z`);

/**
 * The seed, made once per process and frozen: every sandbox's store copies its rows and replaces a row's value on
 * write, never changing the seed's (the test suite starts hundreds of sandboxes in one process, ~11 ms of CPU each
 * to make it again).
 */
export function buildSeed(): Seed {
  seed ??= deepFreeze(makeSeed());
  return seed;
}
let seed: Seed | undefined;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function makeSeed(): Seed {
  const rnd = prng(20240601);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  const owner = new Map<string, string>();
  const prefixes = new Map<string, string>();
  const drafts: { serviceId: string; prefix: string; start: number; value: Record<string, unknown> }[] = [];

  for (const [serviceId, service, prefix, count] of SERVICES) {
    prefixes.set(serviceId, prefix);
    const features = FEATURES[serviceId] ?? [
      [service, 'Service availability'],
      [service, 'Performance'],
      ['Administration', `${service} admin experience`],
    ];
    for (let i = 0; i < count; i++) {
      const [featureGroup, feature] = pick(features);
      const fill = (t: string) => t.replace('{feature}', feature).replace('{service}', service);
      const start = EPOCH - Math.floor(rnd() * 900 * DAY);
      const isResolved = rnd() < 0.85;
      const end = isResolved ? start + Math.floor((1 / 24 + rnd() * 10) * DAY) : null;
      const lastModified = end !== null ? end + Math.floor(rnd() * 2 * 3_600_000) : start + Math.floor(rnd() * 3 * DAY);
      const title = fill(pick(TITLES));
      const impactDescription = fill(pick(IMPACTS));
      const status = isResolved ? pick(RESOLVED_STATUS) : pick(OPEN_STATUS);
      const postCount = 1 + Math.floor(rnd() * 4);
      const posts = Array.from({ length: postCount }, (_, p) => ({
        createdDateTime: iso(start + ((lastModified - start) * p) / postCount + 600_000),
        postType: rnd() < 0.85 ? 'Regular' : pick(['Quick', 'Strategic']),
        description: {
          contentType: rnd() < 0.8 ? 'Html' : 'Text',
          content:
            `Title: ${title}\nUser Impact: ${impactDescription}\n` +
            (p === postCount - 1 && isResolved
              ? `Final status: We've confirmed that the deployed fix resolved the impact.\nStart time: ${iso(start)}\nEnd time: ${iso(end!)}`
              : `Current status: We're analysing diagnostic data to determine the next steps.\nNext update by: ${iso(start + (p + 1) * 7_200_000)}`),
        },
      }));
      drafts.push({
        serviceId,
        prefix,
        start,
        value: {
          startDateTime: iso(start),
          endDateTime: end === null ? null : iso(end),
          lastModifiedDateTime: isoFraction(lastModified, rnd),
          title,
          id: '',
          impactDescription,
          classification: rnd() < 0.55 ? 'Advisory' : 'Incident',
          origin: rnd() < 0.92 ? 'Microsoft' : pick(['ThirdParty', 'Customer']),
          status,
          service,
          feature,
          featureGroup,
          isResolved,
          details: rnd() < 0.3 ? [{ name: 'NotifyInApp', value: 'True' }] : [],
          posts,
        },
      });
    }
  }

  // Issue numbers grow with time, as the real ones do.
  drafts.sort((a, b) => a.start - b.start);
  let number = 200_000;
  const issues: Row[] = drafts.map((d) => {
    number += 1 + Math.floor(rnd() * 120);
    const id = `${d.prefix}${number}`;
    owner.set(id, d.serviceId);
    return { id, etag: etagOf(id, 0), value: { ...d.value, id } };
  });
  issues.sort(
    (a, b) => Date.parse(b.value.lastModifiedDateTime as string) - Date.parse(a.value.lastModifiedDateTime as string),
  );

  const services: Row[] = SERVICES.map(([id, service]) => {
    const open = issues.find(
      (r) => owner.get(r.id) === id && !r.value.isResolved && r.value.classification === 'Incident',
    );
    const status = open ? (open.value.status as string) : rnd() < 0.1 ? 'ServiceRestored' : 'ServiceOperational';
    return { id, etag: etagOf(id, 0), value: { service, status, id } };
  });

  return { services, issues, messages: buildMessages(rnd, pick), owner, prefixes };
}

function buildMessages(rnd: () => number, pick: <T>(list: readonly T[]) => T): Row[] {
  const messages: Row[] = [];
  let number = 172_851;
  for (let i = 0; i < 60; i++) {
    const start = EPOCH - (60 - i) * 9 * DAY + Math.floor(rnd() * DAY);
    const [, primary] = pick(SERVICES);
    const services = [primary, ...(rnd() < 0.3 ? [pick(SERVICES)[1]] : [])].filter((s, k, all) => all.indexOf(s) === k);
    const category = pick(['PreventOrFixIssue', 'PlanForChange', 'PlanForChange', 'StayInformed', 'StayInformed']);
    const change = pick(CHANGES);
    const title = `${i % 7 === 0 ? '(Updated) ' : ''}${primary}: ${change}`;
    const id = `MC${number}`;
    number += 1 + Math.floor(rnd() * 900);
    messages.push({
      id,
      etag: etagOf(id, 0),
      value: {
        startDateTime: iso(start),
        endDateTime: iso(start + 120 * DAY),
        lastModifiedDateTime: isoFraction(start + Math.floor(rnd() * 5 * DAY), rnd),
        title,
        id,
        category,
        severity: rnd() < 0.8 ? 'Normal' : pick(['High', 'Critical']),
        tags: TAGS.filter(() => rnd() < 0.25),
        isMajorChange: rnd() < 0.2,
        actionRequiredByDateTime:
          category !== 'StayInformed' && rnd() < 0.5 ? iso(start + (30 + Math.floor(rnd() * 60)) * DAY) : null,
        services,
        expiryDateTime: null,
        hasAttachments: false,
        viewPoint: null,
        details:
          rnd() < 0.5
            ? [{ name: 'ExternalLink', value: `https://learn.microsoft.com/microsoft-365/${id.toLowerCase()}` }]
            : [],
        body: {
          contentType: 'Html',
          content: `<p>${change} in ${primary}.</p><p><strong>When this will happen:</strong> Rollout begins ${iso(start + 14 * DAY).slice(0, 10)}.</p><p><strong>How this will affect your organization:</strong> ${pick(IMPACTS).replace('{feature}', change.toLowerCase()).replace('{service}', primary)}</p>`,
        },
      },
    });
  }
  return messages.sort(
    (a, b) => Date.parse(b.value.lastModifiedDateTime as string) - Date.parse(a.value.lastModifiedDateTime as string),
  );
}
