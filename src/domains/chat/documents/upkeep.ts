import type { Logger } from 'pino';
import type { DocumentStore, ResponseStore, StoredDocument } from '../../../state/index.js';
import type { ChatClient } from '../../../upstreams/chat/client.js';
import { deleteFile, listFiles } from '../../../upstreams/chat/files.js';
import type { ProviderLabel } from './providerLabel.js';

/**
 * What keeps chat documents bounded outside requests, on every replica (each step is safe to run twice at once: a
 * removal is a compare-and-delete, a provider delete of a file already gone is a 404 taken as done):
 * - **expiry**: documents past `CHAT_DOCUMENT_TTL_S` lose their provider file, then their record and text;
 * - **orphans**: the provider files this deployment labelled (providerLabel.ts) that no document holds are deleted,
 *   when the store says it lost its documents (a Redis restarted empty) and every {@link RECONCILE_MS};
 * - **settling**: uploads whose store write got no answer, retried until Redis answers (the service's `unsettled`).
 */

/** How often the provider files are reconciled with the store, apart from a store that lost its documents. */
export const RECONCILE_MS = 10 * 60_000;
/**
 * A labelled file younger than this is left alone: it may be an upload in flight on another replica (the provider
 * has made the file, the document is not written yet). Longer than an upload can take, clocks' skew included.
 */
export const ORPHAN_GRACE_MS = 15 * 60_000;
/** Most documents expired, and most orphans deleted, in one pass: the next pass goes on. */
export const PASS_LIMIT = 100;
/** Time each upstream request of the upkeep has. */
const UPSTREAM_MS = 30_000;

export interface DocumentUpkeepOptions {
  store: DocumentStore;
  /** The cache of provider-extracted texts, emptied of a removed document's. */
  cache: ResponseStore;
  /** The chat clients whose spec has a files API. */
  clients: () => Iterable<ChatClient>;
  /** The label of this deployment's files at a provider. */
  label: (client: ChatClient) => ProviderLabel;
  /** Documents whose upload is in flight on this replica (their files are not orphans). */
  inFlight: ReadonlySet<string>;
  /** Settles the uploads whose store write got no answer; resolves to how many are left. */
  settle: () => Promise<number>;
  log: Logger;
  /** The tick (a tenth of the TTL, within 1 s … 60 s). */
  intervalMs: number;
  /** @default Date.now */
  now?: () => number;
}

export interface ReconcileResult {
  /** Files listed at the providers. */
  listed: number;
  /** Labelled files no document held, deleted. */
  deleted: number;
}

/** The periodic upkeep of one replica; `stop()` on shutdown. */
export class DocumentUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private reconciledAt: number;
  private failing = false;
  /** A lost store was noticed and its orphans not yet reconciled (a failed pass tries again next tick). */
  private reconcileDue = false;
  private readonly now: () => number;
  /** Aborted on stop: shutdown does not wait out a provider request of the upkeep. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: DocumentUpkeepOptions) {
    this.now = options.now ?? Date.now;
    this.reconciledAt = this.now();
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.running;
  }

  /** One pass: settle, expire, and reconcile when due. A pass still running is not started again. */
  tick(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const { store, log } = this.options;
    try {
      await this.options.settle();
      await this.expire();
      if (await store.lost()) this.reconcileDue = true;
      if (this.reconcileDue || this.now() - this.reconciledAt >= RECONCILE_MS) {
        await this.reconcile();
        this.reconcileDue = false;
      }
      if (this.failing) log.info('chat document upkeep works again');
      this.failing = false;
    } catch (error) {
      // Once per failure streak: a Redis that is down would otherwise log every tick.
      if (!this.failing)
        log.warn({ err: (error as Error).message }, 'chat document upkeep failed; it runs again next tick');
      this.failing = true;
    }
  }

  /** Deletes the provider files of expired documents, then the documents; a file that cannot be deleted keeps its document for the next pass. */
  async expire(): Promise<number> {
    const { store, cache, log } = this.options;
    let removed = 0;
    for (const doc of await store.expired(PASS_LIMIT)) {
      if (!(await this.deleteProviderFile(doc))) continue;
      if (await store.remove(doc.id)) removed++;
      await cache.invalidate([doc.id]).catch(() => undefined);
      log.info(
        { document: doc.id, provider: doc.provider, expiredAt: doc.expiresAt },
        'chat document expired and deleted',
      );
    }
    return removed;
  }

  /**
   * Lists each provider's files and deletes those labelled by this deployment that no document holds, older than
   * {@link ORPHAN_GRACE_MS}. A store that cannot answer stops the pass (nothing is deleted on a guess).
   */
  async reconcile(): Promise<ReconcileResult> {
    const { store, log, inFlight } = this.options;
    this.reconciledAt = this.now();
    const result: ReconcileResult = { listed: 0, deleted: 0 };
    for (const client of this.options.clients()) {
      const provider = client.spec.id;
      const label = this.options.label(client);
      const files = await listFiles(client, this.caller());
      result.listed += files.length;
      let kept = 0;
      for (const file of files) {
        if (result.deleted >= PASS_LIMIT) break;
        const documentId = label.documentOf(file.filename);
        if (!documentId || inFlight.has(documentId) || this.now() - file.createdAt * 1000 < ORPHAN_GRACE_MS) continue;
        if (await store.holds(provider, file.id)) {
          kept++;
          continue;
        }
        // False: another replica's reconcile deleted it first.
        if (!(await deleteFile(client, file.id, this.caller()))) continue;
        result.deleted++;
        log.info(
          { provider, fileId: file.id, document: documentId },
          'deleted a provider file no document holds (an orphan)',
        );
      }
      // Every 10 minutes on every replica: worth a line only when it found orphans.
      log[result.deleted ? 'info' : 'debug'](
        { provider, listed: files.length, held: kept, deleted: result.deleted },
        'chat document files reconciled with the store',
      );
    }
    return result;
  }

  private caller() {
    return {
      signal: AbortSignal.any([this.stopping.signal, AbortSignal.timeout(UPSTREAM_MS)]),
      requestId: 'chat-documents-upkeep',
    };
  }

  private async deleteProviderFile(doc: StoredDocument): Promise<boolean> {
    if (!doc.fileId || !doc.provider) return true;
    const client = [...this.options.clients()].find((c) => c.spec.id === doc.provider);
    if (!client) return true;
    try {
      await deleteFile(client, doc.fileId, this.caller());
      return true;
    } catch (error) {
      this.options.log.warn(
        { document: doc.id, provider: doc.provider, fileId: doc.fileId, err: (error as Error).message },
        'could not delete the provider file of an expired document; next pass tries again',
      );
      return false;
    }
  }
}
