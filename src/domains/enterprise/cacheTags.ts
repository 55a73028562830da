/**
 * The cache tags a router labels enterprise data with (`@cacheTag`, src/schema/cacheTags.ts) and the ones a live
 * health change makes stale, in one place so the two cannot drift apart: a service's entity by its id, its issues
 * and the message center's posts by theirs, and every `admin` root-field answer (service lists, overviews) as one tag.
 */
import type { ChangeBatch } from './live/changes.js';

const SERVICE = 'service-health-';
const ISSUE = 'service-health-issue-';
const MESSAGE = 'service-update-message-';
/** Every answer of the `admin` root field: lists and overviews hold any service. */
const ANNOUNCEMENT = 'service-announcement';

/** The enterprise domain's `cacheTags` (its Domain's, src/domains/domain.ts). */
export const enterpriseCacheTags: Readonly<Record<string, string>> = {
  ServiceHealth: `${SERVICE}{$key.id}`,
  ServiceHealthIssue: `${ISSUE}{$key.id}`,
  ServiceUpdateMessage: `${MESSAGE}{$key.id}`,
  'Query.admin': ANNOUNCEMENT,
};

/** The tags one poll's changes make stale: each changed service (its issues are part of it), issue and post. */
export function staleCacheTags(batch: ChangeBatch): string[] {
  const tags = new Set<string>();
  for (const change of batch.health) {
    tags.add(SERVICE + change.serviceHealth.id);
    if (change.issue) tags.add(ISSUE + change.issue.id);
  }
  for (const post of batch.messages) tags.add(MESSAGE + post.message.id);
  if (tags.size) tags.add(ANNOUNCEMENT);
  return [...tags];
}
