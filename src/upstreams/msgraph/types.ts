/** Upstream shapes of Graph service communications (docs/upstreams.md 1.2), as the JSON arrives. */

export interface RawKeyValuePair {
  name: string;
  value: string | null;
}

export interface RawItemBody {
  contentType?: string | null;
  content?: string | null;
}

export interface RawServiceHealthIssuePost {
  createdDateTime?: string | null;
  postType?: string | null;
  description?: RawItemBody | null;
}

/** serviceAnnouncementBase: the properties issues and messages share. */
export interface RawServiceAnnouncementBase {
  id: string;
  title?: string | null;
  startDateTime?: string | null;
  endDateTime?: string | null;
  lastModifiedDateTime?: string | null;
  details?: RawKeyValuePair[] | null;
}

export interface RawServiceHealthIssue extends RawServiceAnnouncementBase {
  '@odata.etag'?: string;
  impactDescription?: string | null;
  classification?: string | null;
  origin?: string | null;
  status?: string | null;
  service?: string | null;
  feature?: string | null;
  featureGroup?: string | null;
  isResolved?: boolean | null;
  posts?: RawServiceHealthIssuePost[] | null;
}

export interface RawServiceUpdateMessageViewpoint {
  isRead?: boolean | null;
  isArchived?: boolean | null;
  isFavorited?: boolean | null;
}

export interface RawServiceUpdateMessage extends RawServiceAnnouncementBase {
  actionRequiredByDateTime?: string | null;
  expiryDateTime?: string | null;
  body?: RawItemBody | null;
  category?: string | null;
  severity?: string | null;
  hasAttachments?: boolean | null;
  isMajorChange?: boolean | null;
  services?: string[] | null;
  tags?: string[] | null;
  viewPoint?: RawServiceUpdateMessageViewpoint | null;
}

export interface RawServiceHealth {
  '@odata.etag'?: string;
  id: string;
  service?: string;
  status?: string;
  issues?: RawServiceHealthIssue[];
  'issues@odata.nextLink'?: string;
}

/** A collection page: `value` plus the link to the next page, when there is one. */
export interface RawCollection<T> {
  value: T[];
  '@odata.nextLink'?: string;
}

/** The open singletons (`admin`, `serviceAnnouncement`): annotations plus whatever primitives were stored. */
export type RawSingleton = Record<string, unknown> & { '@odata.etag'?: string };

/** Graph's error envelope (docs/upstreams.md 1.9); `innerError` and `innererror` both occur. */
export interface RawGraphError {
  error?: {
    code?: string;
    message?: string;
    innerError?: { 'request-id'?: string; code?: string };
    innererror?: { 'request-id'?: string; code?: string };
  };
}
