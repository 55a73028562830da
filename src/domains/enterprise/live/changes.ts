import type { ServiceHealthChangeKind } from '../../../generated/types.js';
import type {
  RawServiceHealth,
  RawServiceHealthIssue,
  RawServiceUpdateMessage,
} from '../../../upstreams/msgraph/types.js';

/**
 * What the poller finds, and how it finds it: two snapshots (services with their issues; the newest messages) and a
 * diff of each poll against the previous one. Everything here is plain JSON, so a change can cross the change bus
 * to another replica unchanged.
 */

/** The properties each poll asks for: what the diff compares, nothing more (the payload's other fields are loaded). */
export const POLLED = {
  service: ['id', 'service', 'status'],
  issue: ['id', 'status', 'isResolved', 'lastModifiedDateTime'],
  message: ['id', 'lastModifiedDateTime', 'services'],
} as const;

/** One change of a service or one of its issues, as the leader detected it. */
export interface HealthChange {
  kind: ServiceHealthChangeKind;
  /** The service as polled (id, service, status). */
  serviceHealth: RawServiceHealth;
  /** The issue as polled (id, status, isResolved, lastModifiedDateTime); absent for STATUS_CHANGED. */
  issue?: RawServiceHealthIssue;
  /** The upstream's status value before the change; null when there was none (a new service or issue). */
  previousStatus: string | null;
  detectedAt: string;
}

/** A message center post that is new or was modified since the previous poll. */
export interface MessagePost {
  /** The post as polled (id, lastModifiedDateTime, services). */
  message: RawServiceUpdateMessage;
  /** Ids of the services its `services` names, where the health snapshot knows them, for `services:` filters by id. */
  serviceIds: string[];
  detectedAt: string;
}

/** What one poll publishes on the change bus. */
export interface ChangeBatch {
  /** The leader's poll number, for logs. */
  poll: number;
  health: HealthChange[];
  messages: MessagePost[];
}

export interface HealthSnapshot {
  services: Map<string, { raw: RawServiceHealth; issues: Map<string, RawServiceHealthIssue> }>;
}

export function healthSnapshot(services: readonly RawServiceHealth[]): HealthSnapshot {
  const entries = services.map(
    ({ issues, 'issues@odata.nextLink': _next, ...raw }) =>
      [raw.id, { raw, issues: new Map((issues ?? []).map((i) => [i.id, i])) }] as const,
  );
  return { services: new Map(entries) };
}

/**
 * What a leader leaves on the lease after each poll, so the next leader (its subscribers left, or it died) diffs
 * against it instead of starting from a new baseline: nothing changed between two leaders' polls goes unreported.
 */
export interface PollCheckpoint {
  /** When the poll started (ms since the epoch). */
  polledAt: number;
  health: RawServiceHealth[];
  messages?: { watermark: number; seen: Array<[string, string]> };
}

export function pollCheckpoint(
  polledAt: number,
  health: HealthSnapshot,
  messages: MessageWindow | undefined,
): PollCheckpoint {
  return {
    polledAt,
    health: [...health.services.values()].map((s) => ({ ...s.raw, issues: [...s.issues.values()] })),
    messages: messages && { watermark: messages.watermark, seen: [...messages.seen] },
  };
}

export function fromCheckpoint(saved: PollCheckpoint): { health: HealthSnapshot; messages: MessageWindow | undefined } {
  return {
    health: healthSnapshot(saved.health),
    messages: saved.messages && { watermark: saved.messages.watermark, seen: new Map(saved.messages.seen) },
  };
}

// Graph's enum casing is uncertain (docs/upstreams.md 1.3): a change of case alone is no change.
const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? '').toLowerCase() === (b ?? '').toLowerCase();

/**
 * Changes from `before` to `after`, per service in the order Graph lists them: its status change first, then its
 * issues' changes. A service that appeared counts as a status change from nothing; vanished services and issues
 * are not reported (there is nothing to show for them). An issue that appeared already resolved is reported opened,
 * then resolved, so a client that missed the whole incident still sees it end.
 */
export function diffHealth(before: HealthSnapshot, after: HealthSnapshot, detectedAt: string): HealthChange[] {
  const changes: HealthChange[] = [];
  for (const [id, now] of after.services) {
    const was = before.services.get(id);
    const serviceHealth = now.raw;
    if (!was || !same(was.raw.status, now.raw.status)) {
      changes.push({ kind: 'STATUS_CHANGED', serviceHealth, previousStatus: was?.raw.status ?? null, detectedAt });
    }
    for (const [issueId, issue] of now.issues) {
      const old = was?.issues.get(issueId);
      const change = (kind: ServiceHealthChangeKind, previousStatus: string | null) =>
        changes.push({ kind, serviceHealth, issue, previousStatus, detectedAt });
      if (!old) {
        change('ISSUE_OPENED', null);
        if (issue.isResolved) change('ISSUE_RESOLVED', null);
      } else if (issue.isResolved && !old.isResolved) change('ISSUE_RESOLVED', old.status ?? null);
      else if (
        !same(old.lastModifiedDateTime, issue.lastModifiedDateTime) ||
        !same(old.status, issue.status) ||
        !!old.isResolved !== !!issue.isResolved
      ) {
        change('ISSUE_UPDATED', old.status ?? null);
      }
    }
  }
  return changes;
}

/**
 * The messages already seen at or after the newest `lastModifiedDateTime` of the previous poll (the watermark).
 * Older ones can be forgotten: the poll reads messages newest first and stops below the watermark.
 */
export interface MessageWindow {
  watermark: number;
  seen: Map<string, string>;
}

const modified = (m: RawServiceUpdateMessage) => Date.parse(m.lastModifiedDateTime ?? '') || 0;

/**
 * New and modified posts among `newestFirst` (one or more pages ordered by `lastModifiedDateTime desc`), and the
 * window for the next poll. Without a previous window this is the baseline: nothing is reported.
 */
export function diffMessages(
  window: MessageWindow | undefined,
  newestFirst: readonly RawServiceUpdateMessage[],
): { posts: RawServiceUpdateMessage[]; window: MessageWindow } {
  const posts: RawServiceUpdateMessage[] = [];
  const seen = new Map(window?.seen ?? []);
  for (const m of newestFirst) {
    if (window && modified(m) < window.watermark) break;
    if (window && seen.get(m.id) !== (m.lastModifiedDateTime ?? '')) posts.push(m);
    seen.set(m.id, m.lastModifiedDateTime ?? '');
  }
  const watermark = Math.max(window?.watermark ?? 0, ...newestFirst.slice(0, 1).map(modified));
  for (const [id, at] of seen) if ((Date.parse(at) || 0) < watermark) seen.delete(id);
  // Oldest first, the order they happened in.
  return { posts: posts.reverse(), window: { watermark, seen } };
}

/** True while a page ordered newest first may still hold posts newer than the window: read the next page. */
export function needsNextPage(window: MessageWindow | undefined, page: readonly RawServiceUpdateMessage[]): boolean {
  return !!window && page.length > 0 && modified(page[page.length - 1]) >= window.watermark;
}

/** A `services:` argument: ids or names, compared without case. */
export class ServiceFilter {
  private readonly keys: Set<string>;

  constructor(services: readonly string[]) {
    this.keys = new Set(services.map((s) => s.toLowerCase()));
  }

  private has(value: string | null | undefined): boolean {
    return !!value && this.keys.has(value.toLowerCase());
  }

  health(change: HealthChange): boolean {
    return this.has(change.serviceHealth.id) || this.has(change.serviceHealth.service);
  }

  message(post: MessagePost): boolean {
    return (post.message.services ?? []).some((name) => this.has(name)) || post.serviceIds.some((id) => this.has(id));
  }
}
