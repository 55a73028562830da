import type { GatewayError } from '../../../errors/codes.js';
import type { GraphCall, GraphClient, GraphResult } from '../../../upstreams/msgraph/client.js';
import type {
  RawCollection,
  RawServiceHealth,
  RawServiceHealthIssue,
  RawServiceUpdateMessage,
} from '../../../upstreams/msgraph/types.js';
import { toQueryString } from '../odata.js';
import { HEALTH_OVERVIEWS, MESSAGES } from '../planner.js';
import { needsNextPage, POLLED, type MessageWindow } from './changes.js';

/** Every service with its issues, only the properties the diff compares: one request while Graph sends no nextLink. */
export const HEALTH_POLL =
  HEALTH_OVERVIEWS +
  toQueryString({ select: POLLED.service, expand: { nav: 'issues', options: { select: POLLED.issue } } });

/** Posts per messages poll; the next page is read only while a whole page is newer than the previous poll. */
export const MESSAGES_PAGE = 50;
export const MESSAGES_POLL =
  MESSAGES + toQueryString({ select: POLLED.message, top: MESSAGES_PAGE, orderby: 'lastModifiedDateTime desc' });

/** More pages than any tenant has: a loop guard against a nextLink that points back at itself. */
const MAX_PAGES = 50;

/**
 * The poller's two reads. Each is one request; nextLinks are followed only when Graph pages the answer (more than
 * 100 services, an issue list cut short, or more changed posts than one page holds). No retries inside a poll: the
 * poller backs off per `Retry-After` and tries again on its own schedule.
 */
export class LiveSource {
  constructor(
    private readonly client: GraphClient,
    /** The gateway's own credentials for one call. */
    private readonly call: (signal: AbortSignal) => Promise<GraphCall>,
  ) {}

  async health(signal: AbortSignal): Promise<RawServiceHealth[]> {
    const call = { ...(await this.call(signal)), retry: { maxAttempts: 1 } };
    const services = await this.pages<RawServiceHealth>(HEALTH_POLL, call, () => true);
    const cut = services.filter((s) => s['issues@odata.nextLink']);
    for (let round = 0; cut.length && round < MAX_PAGES; round++) {
      const results = await this.client.getMany(
        cut.map((s) => this.relative(s['issues@odata.nextLink']!)),
        call,
      );
      results.forEach((r, i) => {
        const body = bodyOf<RawCollection<RawServiceHealthIssue>>(r);
        cut[i].issues = [...(cut[i].issues ?? []), ...(body.value ?? [])];
        cut[i]['issues@odata.nextLink'] = body['@odata.nextLink'];
      });
      cut.splice(0, cut.length, ...cut.filter((s) => s['issues@odata.nextLink']));
    }
    return services;
  }

  /** Posts newest first, down to the window's watermark (the first page only for a baseline). */
  async messages(window: MessageWindow | undefined, signal: AbortSignal): Promise<RawServiceUpdateMessage[]> {
    const call = { ...(await this.call(signal)), retry: { maxAttempts: 1 } };
    return this.pages<RawServiceUpdateMessage>(MESSAGES_POLL, call, (page) => needsNextPage(window, page));
  }

  private async pages<T>(first: string, call: GraphCall, more: (page: T[]) => boolean): Promise<T[]> {
    const all: T[] = [];
    let path: string | undefined = first;
    for (let n = 0; path && n < MAX_PAGES; n++) {
      const body: RawCollection<T> = bodyOf(await this.client.get(path, call));
      const page = body.value ?? [];
      all.push(...page);
      const next = body['@odata.nextLink'];
      path = next && more(page) ? this.relative(next) : undefined;
    }
    return all;
  }

  private relative(link: string): string {
    const path = this.client.relative(link);
    if (!path) throw new Error(`Microsoft Graph sent a nextLink outside its API root: ${link.slice(0, 80)}`);
    return path;
  }
}

function bodyOf<T>(r: GraphResult): T {
  if (!r.ok) throw r.error as GatewayError;
  return r.body as T;
}
