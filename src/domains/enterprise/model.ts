import type {
  BodyType,
  ItemBody,
  KeyValuePair,
  OpenProperty,
  ServiceHealthClassification,
  ServiceHealthIssue,
  ServiceHealthIssuePostType,
  ServiceHealthOrigin,
  ServiceHealthStatus,
  ServiceUpdateCategory,
  ServiceUpdateMessage,
  ServiceUpdateSeverity,
} from '../../generated/types.js';
import type {
  RawItemBody,
  RawServiceAnnouncementBase,
  RawServiceHealth,
  RawServiceHealthIssue,
  RawServiceUpdateMessage,
  RawSingleton,
} from '../../upstreams/msgraph/types.js';
import {
  BODY_TYPE,
  CLASSIFICATION,
  fromUpstreamEnum,
  MESSAGE_CATEGORY,
  MESSAGE_SEVERITY,
  ORIGIN,
  POST_TYPE,
  SERVICE_HEALTH_STATUS,
} from './enums.js';

/** One page of a connection, with the links that make its cursors. */
export interface Page<T> {
  nodes: T[];
  /** Path and query below the version root that fetched this page. */
  link: string;
  /** The upstream's `@odata.nextLink`, made relative; absent on the last page. */
  next?: string;
}
export type ServiceHealthPage = Page<ServiceHealthModel>;
export type ServiceHealthIssuePage = Page<ServiceHealthIssueModel>;
export type ServiceUpdateMessagePage = Page<ServiceUpdateMessageModel>;
export type AnyPage = Page<unknown>;

export interface ServiceHealthModel {
  id: string;
  service: string;
  status: ServiceHealthStatus;
  etag: string | null;
  /** Issue pages fetched inline by `$expand`, by the argument key of the `issues` field they answer. */
  issuePages: ReadonlyMap<string, ServiceHealthIssuePage>;
}

export type ServiceHealthIssueModel = Omit<ServiceHealthIssue, '__typename'>;
export type ServiceUpdateMessageModel = Omit<ServiceUpdateMessage, '__typename'>;

/** `admin` or `serviceAnnouncement`; `data` is there once read (or returned by a write). */
export interface SingletonModel {
  path: '/admin' | '/admin/serviceAnnouncement';
  data?: { etag: string | null; properties: OpenProperty[] };
  /** Admin's child, read as a plain property: compiled execution calls no resolver (nor makes its info) for it. */
  serviceAnnouncement?: SingletonModel;
}

/** An expanded issue page: the raw issues plus where they came from. */
export interface ExpandedIssues {
  key: string;
  link: string;
}

/** The serviceAnnouncementBase properties, which issues and messages share. */
function toAnnouncementBase(
  raw: RawServiceAnnouncementBase,
): Pick<
  ServiceHealthIssueModel,
  'id' | 'title' | 'startDateTime' | 'endDateTime' | 'lastModifiedDateTime' | 'details'
> {
  return {
    id: raw.id,
    title: raw.title ?? null,
    startDateTime: raw.startDateTime ?? null,
    endDateTime: raw.endDateTime ?? null,
    lastModifiedDateTime: raw.lastModifiedDateTime ?? null,
    details: (raw.details ?? []).map((d): KeyValuePair => ({ name: d.name, value: d.value ?? null })),
  };
}

function toItemBody(raw: RawItemBody | null | undefined): ItemBody | null {
  return raw
    ? { contentType: fromUpstreamEnum<BodyType>(BODY_TYPE, raw.contentType), content: raw.content ?? null }
    : null;
}

export function toServiceHealthIssue(raw: RawServiceHealthIssue): ServiceHealthIssueModel {
  return {
    ...toAnnouncementBase(raw),
    impactDescription: raw.impactDescription ?? null,
    classification: fromUpstreamEnum<ServiceHealthClassification>(CLASSIFICATION, raw.classification),
    origin: fromUpstreamEnum<ServiceHealthOrigin>(ORIGIN, raw.origin),
    status: fromUpstreamEnum<ServiceHealthStatus>(SERVICE_HEALTH_STATUS, raw.status),
    service: raw.service ?? null,
    feature: raw.feature ?? null,
    featureGroup: raw.featureGroup ?? null,
    isResolved: raw.isResolved ?? null,
    posts: (raw.posts ?? []).map((p) => ({
      createdDateTime: p.createdDateTime ?? null,
      postType: fromUpstreamEnum<ServiceHealthIssuePostType>(POST_TYPE, p.postType),
      description: toItemBody(p.description),
    })),
    etag: raw['@odata.etag'] ?? null,
  };
}

export function toServiceUpdateMessage(raw: RawServiceUpdateMessage): ServiceUpdateMessageModel {
  const viewPoint = raw.viewPoint;
  return {
    ...toAnnouncementBase(raw),
    actionRequiredByDateTime: raw.actionRequiredByDateTime ?? null,
    expiryDateTime: raw.expiryDateTime ?? null,
    body: toItemBody(raw.body),
    category: fromUpstreamEnum<ServiceUpdateCategory>(MESSAGE_CATEGORY, raw.category),
    severity: fromUpstreamEnum<ServiceUpdateSeverity>(MESSAGE_SEVERITY, raw.severity),
    hasAttachments: raw.hasAttachments ?? null,
    isMajorChange: raw.isMajorChange ?? null,
    services: raw.services ?? [],
    tags: raw.tags ?? [],
    viewPoint: viewPoint
      ? {
          isRead: viewPoint.isRead ?? null,
          isArchived: viewPoint.isArchived ?? null,
          isFavorited: viewPoint.isFavorited ?? null,
        }
      : null,
  };
}

/**
 * A serviceHealth as the graph sees it. `expanded` says which `issues` field an inline `$expand` answered;
 * `relative` turns the upstream's nextLink into a path below the version root.
 */
export function toServiceHealth(
  raw: RawServiceHealth,
  expanded: ExpandedIssues | undefined,
  relative: (link: string) => string | undefined,
): ServiceHealthModel {
  let issuePages = NO_ISSUE_PAGES;
  if (expanded && Array.isArray(raw.issues)) {
    const next = raw['issues@odata.nextLink'];
    issuePages = new Map([
      [
        expanded.key,
        { nodes: raw.issues.map(toServiceHealthIssue), link: expanded.link, next: next ? relative(next) : undefined },
      ],
    ]);
  }
  return {
    id: raw.id,
    service: raw.service ?? '',
    status: fromUpstreamEnum<ServiceHealthStatus>(SERVICE_HEALTH_STATUS, raw.status) ?? 'UNKNOWN_FUTURE_VALUE',
    etag: raw['@odata.etag'] ?? null,
    issuePages,
  };
}

/** A service without inline issue pages (most lookups): one empty table for all of them, never written. */
const NO_ISSUE_PAGES: ReadonlyMap<string, ServiceHealthIssuePage> = new Map();

/** An open singleton's stored primitives as name/value pairs; OData annotations are not properties. */
export function toSingletonData(raw: RawSingleton): NonNullable<SingletonModel['data']> {
  const properties = Object.entries(raw)
    .filter(([name]) => !name.startsWith('@') && !name.includes('@'))
    .map(([name, value]) => ({
      name,
      value: value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value),
    }));
  return { etag: raw['@odata.etag'] ?? null, properties };
}
