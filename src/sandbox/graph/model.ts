import { badRequest } from './errors.js';

/** Enum members, PascalCase as every v1.0 response example shows them (docs/upstreams.md 1.3). */
export const SERVICE_HEALTH_STATUS = [
  'ServiceOperational',
  'Investigating',
  'RestoringService',
  'VerifyingService',
  'ServiceRestored',
  'PostIncidentReviewPublished',
  'ServiceDegradation',
  'ServiceInterruption',
  'ExtendedRecovery',
  'FalsePositive',
  'InvestigationSuspended',
  'Resolved',
  'MitigatedExternal',
  'Mitigated',
  'ResolvedExternal',
  'Confirmed',
  'Reported',
  'UnknownFutureValue',
] as const;
export const CLASSIFICATION = ['Advisory', 'Incident', 'UnknownFutureValue'] as const;
export const ORIGIN = ['Microsoft', 'ThirdParty', 'Customer', 'UnknownFutureValue'] as const;
export const POST_TYPE = ['Regular', 'Quick', 'Strategic', 'UnknownFutureValue'] as const;
export const MESSAGE_CATEGORY = ['PreventOrFixIssue', 'PlanForChange', 'StayInformed', 'UnknownFutureValue'] as const;
export const MESSAGE_SEVERITY = ['Normal', 'High', 'Critical', 'UnknownFutureValue'] as const;

/** Kind of a structural property; an array is an enum's members. Only primitives can be filtered and sorted. */
export type Prop = 'string' | 'boolean' | 'dateTime' | 'complex' | 'collection' | readonly string[];

export interface Navigation {
  target: EntityType;
  many: boolean;
}

export interface EntityType {
  /** Qualified name, used in error messages. */
  name: string;
  props: Readonly<Record<string, Prop>>;
  navs: Readonly<Record<string, Navigation>>;
  /** Open types (the two singletons) accept any primitive property. */
  open?: boolean;
}

/** One stored entity: its id, current etag and an immutable value (writes replace it). */
export interface Row {
  id: string;
  etag: string;
  value: Readonly<Record<string, unknown>>;
}

const announcementBase = {
  id: 'string',
  title: 'string',
  startDateTime: 'dateTime',
  endDateTime: 'dateTime',
  lastModifiedDateTime: 'dateTime',
  details: 'complex',
} as const satisfies Record<string, Prop>;

export const serviceHealthIssueType: EntityType = {
  name: 'microsoft.graph.serviceHealthIssue',
  props: {
    ...announcementBase,
    impactDescription: 'string',
    classification: CLASSIFICATION,
    origin: ORIGIN,
    status: SERVICE_HEALTH_STATUS,
    service: 'string',
    feature: 'string',
    featureGroup: 'string',
    isResolved: 'boolean',
    posts: 'complex',
  },
  navs: {},
};

export const serviceHealthType: EntityType = {
  name: 'microsoft.graph.serviceHealth',
  props: { service: 'string', status: SERVICE_HEALTH_STATUS, id: 'string' },
  navs: { issues: { target: serviceHealthIssueType, many: true } },
};

export const serviceUpdateMessageType: EntityType = {
  name: 'microsoft.graph.serviceUpdateMessage',
  props: {
    ...announcementBase,
    actionRequiredByDateTime: 'dateTime',
    expiryDateTime: 'dateTime',
    body: 'complex',
    category: MESSAGE_CATEGORY,
    hasAttachments: 'boolean',
    isMajorChange: 'boolean',
    services: 'collection',
    severity: MESSAGE_SEVERITY,
    tags: 'collection',
    viewPoint: 'complex',
  },
  navs: {},
};

export const serviceAnnouncementType: EntityType = {
  name: 'microsoft.graph.serviceAnnouncement',
  props: {},
  open: true,
  navs: {
    healthOverviews: { target: serviceHealthType, many: true },
    issues: { target: serviceHealthIssueType, many: true },
    messages: { target: serviceUpdateMessageType, many: true },
  },
};

export const adminType: EntityType = {
  name: 'microsoft.graph.admin',
  props: {},
  open: true,
  navs: { serviceAnnouncement: { target: serviceAnnouncementType, many: false } },
};

/** The property's kind, or a 400 naming it when the type has no such property. */
export function propertyOf(type: EntityType, name: string): Prop {
  const prop = type.props[name];
  if (prop) return prop;
  if (type.open && /^[A-Za-z_][\w]*$/.test(name)) return 'string';
  throw badRequest(`Could not find a property named '${name}' on type '${type.name}'.`);
}

export const isPrimitive = (p: Prop): boolean => p !== 'complex' && p !== 'collection';

/** The canonical enum member for a case-insensitive match, or undefined. */
export function enumMember(members: readonly string[], value: string): string | undefined {
  const lower = value.toLowerCase();
  return members.find((m) => m.toLowerCase() === lower);
}
