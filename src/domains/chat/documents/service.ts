import { createHash, randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import type { GatewayContext } from '../../../context/request.js';
import type { GatewayServices } from '../../../context/services.js';
import { badInput, ErrorCode, ErrorReason, GatewayError, upstreamError } from '../../../errors/codes.js';
import type { DocumentStore, ProviderUsage, ResponseStore, StoredDocument } from '../../../state/index.js';
import type { ChatClient } from '../../../upstreams/chat/client.js';
import {
  countTokens,
  deleteFile,
  extractionFailed,
  fileContent,
  listFiles,
  uploadFile,
  UploadOutcomeUnknown,
  type UpstreamFile,
} from '../../../upstreams/chat/files.js';
import type { FilesApiSpec } from '../../../upstreams/chat/provider.js';
import { describeBytes } from '../../../upstreams/http/body.js';
import { estimateDocumentTokens } from '../contextWindow.js';
import { extensionOf, gatewayExtracts, GATEWAY_FORMATS, mediaTypeOf, scanFile, type FileScan } from './formats.js';
import { DocumentExtraction, refusedDocument } from './extraction/documentExtraction.js';
import { ExtractionRefused } from './extraction/extractors.js';
import { providerLabel, type ProviderLabel } from './providerLabel.js';
import { DocumentUpkeep } from './upkeep.js';
import type { FileUpload } from './uploaded.js';

/** Most documents one completion may name. */
export const MAX_COMPLETION_DOCUMENTS = 20;
/** How long a provider's extracted text stays in the cache (it never changes while the file lives). */
const TEXT_TTL_MS = 24 * 60 * 60 * 1000;
/** An uploaded file costs 1 per this many bytes started (docs/security.md, "Demand control"). */
export const UPLOAD_COST_BYTES = 1024 * 1024;
/** Time the clean-up of a failed upload has, apart from the caller's request (which may be gone). */
const CLEANUP_MS = 30_000;
/**
 * Pauses between the tries to settle a store write that got no answer, within the upload (about 4 s in all, plus a
 * command timeout each); past them the upload answers a retryable error and the upkeep settles it in the background.
 */
const SETTLE_PAUSES_MS = [0, 250, 500, 1_000, 2_000];

/**
 * Who owns a document: the caller as the gateway tells callers apart (the context's `client`, `clientKey`: the subject a
 * trusted authority named (a router's end client, a verified token's `sub`), else its API key when GATEWAY_API_KEYS is
 * set, else its address), hashed again, so no key or subject is ever kept.
 */
export function ownerOf(ctx: GatewayContext): string {
  return createHash('sha256').update(`chat-documents\0${ctx.client}`).digest('base64url').slice(0, 32);
}

/**
 * Chat documents: uploads (to a provider's files API, which extracts the text, or extracted here), the caller's
 * list, deletion (the provider's copy too) and the texts completions read. Records and the texts the gateway extracted
 * live in the shared state's document store; texts read from a provider in a byte-bounded cache, read once.
 */
export class ChatDocuments {
  private readonly store: DocumentStore;
  private readonly cache: ResponseStore;
  /** Texts being read from a provider on this replica: concurrent completions over one document share one read. */
  private readonly reading = new Map<string, Promise<string>>();
  /** The gateway's own extraction: spooled, one line per client, in extractor processes. */
  readonly extraction: DocumentExtraction;
  /** Documents whose upload to a provider is in flight here: their files are not orphans. */
  private readonly inFlight = new Set<string>();
  /** Uploads answered with an error whose store write got no answer: the upkeep removes them once Redis answers. */
  private readonly unsettled = new Map<string, StoredDocument>();
  private readonly labels = new Map<string, ProviderLabel>();
  /** Expiry, orphaned provider files and unsettled uploads, on a timer (upkeep.ts). */
  readonly upkeep: DocumentUpkeep;

  constructor(private readonly services: Pick<GatewayServices, 'config' | 'state' | 'log' | 'clients' | 'onClose'>) {
    const { chatDocuments } = services.config;
    this.store = services.state.documents('chat', {
      maxTextBytes: chatDocuments.storeMaxBytes,
      clientMaxBytes: chatDocuments.clientMaxBytes,
    });
    this.cache = services.state.responseStore('chat-document-text', { maxBytes: chatDocuments.cacheMaxBytes });
    this.extraction = new DocumentExtraction({
      maxExtractedBytes: chatDocuments.maxExtractedBytes,
      timeoutMs: chatDocuments.extractTimeoutMs,
    });
    services.onClose.push(() => this.extraction.close());
    this.upkeep = new DocumentUpkeep({
      store: this.store,
      cache: this.cache,
      clients: () => [...services.clients.chat.values()].filter((c) => c.spec.files),
      label: (client) => this.labelOf(client),
      inFlight: this.inFlight,
      settle: () => this.settleUnsettled(),
      log: services.log,
      intervalMs: Math.min(60_000, Math.max(1_000, chatDocuments.ttlMs / 10)),
    });
    this.upkeep.start();
    services.onClose.push(() => this.upkeep.stop());
  }

  /** The caller's documents, newest first. */
  list(ctx: GatewayContext): Promise<StoredDocument[]> {
    return this.store.list(ownerOf(ctx)).catch(unanswered('your documents cannot be listed'));
  }

  /**
   * Uploads one file: every check that needs no upstream request first (the provider, its file count, the whole
   * file arrived, its size, type and PDF structure), then the provider's files API or the gateway's own extraction.
   * A file the provider kept for an upload that then failed is deleted before the error is answered.
   */
  async upload(
    upload: Promise<FileUpload>,
    providerId: string | null | undefined,
    ctx: GatewayContext,
  ): Promise<StoredDocument> {
    const owner = ownerOf(ctx);
    const client = providerId == null ? undefined : clientFor(providerId, ctx);
    const files = client?.spec.files;
    const usage = client && files ? await this.providerUsage(client.spec.id, owner) : undefined;
    if (client && files && usage && usage.files >= files.maxFiles) {
      throw badInput(
        `${client.spec.id} keeps at most ${files.maxFiles} files per account, and this gateway's documents hold ${usage.files} there; delete documents you no longer need (deleteChatDocument) first.`,
        'provider',
      );
    }
    if (client && files && usage && usage.mine.files >= this.shareOf(files.maxFiles)) {
      const share = this.shareOf(files.maxFiles);
      throw shareFull(`${share} file${share === 1 ? '' : 's'} at ${client.spec.id}`, `${usage.mine.files}`, 'provider');
    }
    if (!usage) {
      // A client at its share is refused before its file is read and extracted, not after.
      const { clientMaxBytes } = this.services.config.chatDocuments;
      const held = await this.store.held(owner).catch(unanswered('the upload cannot be counted against your share'));
      if (held >= clientMaxBytes)
        throw shareFull(`${describeBytes(clientMaxBytes)} of text`, describeBytes(held), 'file');
    }
    const max = this.services.config.chatDocuments.maxBytes;
    let file: FileUpload;
    let scan: FileScan;
    try {
      file = await upload;
      scan = await scanFile(file.createReadStream());
    } catch (error) {
      throw uploadProblem(error, max);
    }
    // Its bytes are work whoever reads them (spooled, extracted or sent on): 1 of cost per MiB started.
    ctx.upstreamRequests.work += Math.ceil(scan.bytes / UPLOAD_COST_BYTES);
    const name = fileNameOf(file.filename);
    if (scan.bytes === 0) throw badInput(`${name} is empty (0 bytes); upload a file with content.`, 'file');
    if (client && files) {
      const id = newDocumentId();
      this.inFlight.add(id);
      return this.toProvider(id, client, files, usage!, file, name, scan, owner, ctx).finally(() =>
        this.inFlight.delete(id),
      );
    }
    return this.extractHere(providerId ?? null, file, name, scan, owner, ctx);
  }

  /** Deletes one of the caller's documents, the provider's file first (kept when that fails, so nothing is orphaned). */
  async delete(id: string, ctx: GatewayContext): Promise<boolean> {
    const doc = await this.store
      .get(id)
      .catch(unanswered(`document ${JSON.stringify(id.slice(0, 64))} cannot be deleted now`));
    if (!doc || doc.owner !== ownerOf(ctx)) throw notYours(id, 'id');
    if (doc.fileId && doc.provider) {
      const client = ctx.services.clients.chat.get(doc.provider);
      if (client) await deleteFile(client, doc.fileId, ctx);
      else
        ctx.log.warn(
          { document: doc.id, provider: doc.provider },
          'chat document deleted; its provider is no longer configured, so its file there was not',
        );
    }
    await this.store
      .remove(id)
      .catch(
        unanswered(
          `document ${doc.id} may not be deleted yet${doc.fileId ? ` (its file at ${doc.provider} is)` : ''}; send the delete again`,
        ),
      );
    await this.cache.invalidate([id]);
    return true;
  }

  /** The caller's documents a completion names, checked without any upstream request (ownership, status, count). */
  async forCompletion(ids: readonly string[], ctx: GatewayContext): Promise<StoredDocument[]> {
    if (ids.length > MAX_COMPLETION_DOCUMENTS)
      throw badInput(
        `documents names ${ids.length} documents; a completion takes at most ${MAX_COMPLETION_DOCUMENTS}.`,
        'input.documents',
      );
    const owner = ownerOf(ctx);
    const seen = new Set<string>();
    return Promise.all(
      ids.map(async (id, i) => {
        const at = `input.documents[${i}]`;
        if (seen.has(id))
          throw badInput(`${at} names ${JSON.stringify(id)} a second time; name each document once.`, at);
        seen.add(id);
        // Never a copy this replica kept: the document may have been deleted on another replica meanwhile.
        const doc = await this.store
          .get(id)
          .catch(
            unanswered(
              `it cannot confirm that ${at} ${JSON.stringify(id.slice(0, 64))} still exists, and does not use a document it cannot confirm`,
            ),
          );
        if (!doc || doc.owner !== owner) throw notYours(id, at);
        if (doc.status === 'unavailable')
          throw badInput(
            `${at} ${JSON.stringify(id)} (${doc.fileName}) is UNAVAILABLE: ${doc.provider} no longer has its file; delete it and upload the file again.`,
            at,
          );
        return doc;
      }),
    );
  }

  /** A document's text: kept here, or cached, or read from its provider once (then cached). */
  async text(doc: StoredDocument, ctx: GatewayContext): Promise<string> {
    if (!doc.fileId) {
      const text = await this.store.text(doc.id);
      if (text === undefined)
        throw new GatewayError(
          ErrorCode.InternalServerError,
          `The text of document ${doc.id} (${doc.fileName}) cannot be read from the gateway's document store right now; retry shortly.`,
        );
      return text;
    }
    const cached = await this.cache.get(doc.id, [doc.id]);
    if (cached !== undefined) return cached;
    let reading = this.reading.get(doc.id);
    if (!reading) {
      reading = this.readFromProvider(doc, ctx).finally(() => this.reading.delete(doc.id));
      this.reading.set(doc.id, reading);
    }
    return reading;
  }

  private async readFromProvider(doc: StoredDocument, ctx: GatewayContext): Promise<string> {
    const client = doc.provider ? ctx.services.clients.chat.get(doc.provider) : undefined;
    if (!client)
      throw badInput(
        `Document ${doc.id} (${doc.fileName}) is kept by ${doc.provider}, which this gateway no longer has configured; upload the file again.`,
        'input.documents',
      );
    const text = await fileContent(client, doc.fileId!, ctx);
    if (text === undefined) {
      await this.store.setStatus(doc.id, 'unavailable');
      throw badInput(
        `Document ${doc.id} (${doc.fileName}) is gone from ${client.spec.id} (its file was deleted outside the gateway); delete the document and upload the file again.`,
        'input.documents',
      );
    }
    await this.cache.set(doc.id, text, TEXT_TTL_MS, [doc.id]);
    return text;
  }

  private async toProvider(
    id: string,
    client: ChatClient,
    files: FilesApiSpec,
    usage: ProviderUsage & { mine: ProviderUsage },
    file: FileUpload,
    name: string,
    scan: FileScan,
    owner: string,
    ctx: GatewayContext,
  ): Promise<StoredDocument> {
    const provider = client.spec.id;
    const ext = extensionOf(name);
    if (!files.extensions.has(ext)) {
      throw badInput(
        `${provider}'s files API does not read ${ext ? `${ext} files` : 'files without an extension'} (${name}); it takes ${[...files.extensions].join(' ')}.`,
        'file',
      );
    }
    if (scan.bytes > files.maxFileBytes)
      throw badInput(
        `${name} is ${describeBytes(scan.bytes)}; ${provider} takes files of at most ${describeBytes(files.maxFileBytes)}.`,
        'file',
      );
    if (usage.bytes + scan.bytes > files.maxTotalBytes) {
      throw badInput(
        `${provider} keeps at most ${describeBytes(files.maxTotalBytes)} of files per account; this gateway's documents hold ${describeBytes(usage.bytes)} there, too much to add ${name} (${describeBytes(scan.bytes)}). Delete documents you no longer need first.`,
        'file',
      );
    }
    const myBytes = this.shareOf(files.maxTotalBytes);
    if (usage.mine.bytes + scan.bytes > myBytes)
      throw shareFull(
        `${describeBytes(myBytes)} of files at ${provider}`,
        describeBytes(usage.mine.bytes),
        'file',
        `${name} (${describeBytes(scan.bytes)})`,
      );
    checkPdf(name, scan);
    // A text file's text is the file: past what the gateway reads back it could never be placed in a prompt.
    if (scan.kind === 'text' && scan.bytes > client.http.maxResponseBytes) {
      throw badInput(
        `${name} is ${describeBytes(scan.bytes)} of text; the gateway reads at most ${describeBytes(client.http.maxResponseBytes)} of extracted text back from ${provider} (UPSTREAM_MAX_RESPONSE_BYTES), and no model's context window holds that much. Split it, or upload the parts you need.`,
        'file',
      );
    }
    const mediaType = mediaTypeOf(name, scan);
    // The name at the provider proves the file is this deployment's (providerLabel.ts): the orphan reconcile's key.
    const labelled = this.labelOf(client).name(id, name);
    let uploaded: UpstreamFile;
    try {
      uploaded = await uploadFile(
        client,
        { name: labelled, mediaType, bytes: scan.bytes, open: (): Readable => file.createReadStream() },
        ctx,
      );
    } catch (error) {
      if (!(error instanceof UploadOutcomeUnknown)) throw error;
      await this.sweep(client, labelled, ctx);
      throw error.failure;
    }
    try {
      if (uploaded.status === 'error') throw extractionFailed(client, { ...uploaded, filename: name });
      const text = await fileContent(client, uploaded.id, ctx);
      if (text === undefined)
        throw upstreamError(
          ErrorCode.UpstreamError,
          `The ${provider} service lost file ${uploaded.id} right after its upload; upload it again.`,
          { upstream: provider },
        );
      if (!text.trim())
        throw badInput(`${provider} extracted no text from ${name}; a document needs text the model can read.`, 'file');
      const doc: StoredDocument = {
        id,
        owner,
        provider,
        fileId: uploaded.id,
        fileName: name,
        mediaType,
        bytes: scan.bytes,
        tokens: await this.tokensAt(client, text, ctx),
        status: 'ready',
        ...this.lifetime(),
      };
      // A caller who left never learns the id: keep nothing (the file is deleted below).
      ctx.signal.throwIfAborted();
      await this.commit(doc, undefined, ctx);
      await this.cache.set(doc.id, text, TEXT_TTL_MS, [doc.id]);
      ctx.log.info({ document: doc.id, provider, bytes: doc.bytes, tokens: doc.tokens }, 'chat document uploaded');
      return doc;
    } catch (error) {
      // A document that may be stored keeps its file: the upkeep settles both once Redis answers.
      if (error instanceof Unsettled) throw error.failure;
      await this.discard(client, uploaded.id, ctx);
      throw error;
    }
  }

  private async extractHere(
    provider: string | null,
    file: FileUpload,
    name: string,
    scan: FileScan,
    owner: string,
    ctx: GatewayContext,
  ): Promise<StoredDocument> {
    checkPdf(name, scan);
    if (!gatewayExtracts(name, scan)) {
      const what = scan.kind === 'text' ? `${extensionOf(name)} files` : 'binary files of this type';
      const elsewhere = ctx.services.clients.chat.get('moonshot')?.spec.files
        ? '; upload it with provider "moonshot", whose files API reads Word, slides, images and more'
        : '';
      throw badInput(
        `The gateway does not extract text from ${what} (${name}); it reads ${GATEWAY_FORMATS}${elsewhere}.`,
        'file',
      );
    }
    let text: string;
    let tokens: number;
    try {
      ({ text, tokens } = await this.extraction.extract(
        owner,
        scan.kind === 'pdf' ? 'pdf' : 'text',
        file.createReadStream(),
        name,
        ctx.signal,
      ));
    } catch (error) {
      if (!(error instanceof ExtractionRefused)) throw error;
      const elsewhere = ctx.services.clients.chat.get('moonshot')?.spec.files
        ? ', or upload it with provider "moonshot", whose files API reads it'
        : '';
      throw refusedDocument(
        name,
        scan.kind === 'pdf' ? 'pdf' : 'text',
        error,
        {
          maxExtractedBytes: this.services.config.chatDocuments.maxExtractedBytes,
          timeoutMs: this.services.config.chatDocuments.extractTimeoutMs,
        },
        elsewhere,
      );
    }
    if (!text.trim())
      throw badInput(
        `${name} has no text to read (a scanned PDF has only images of its pages); the model needs text.`,
        'file',
      );
    const doc: StoredDocument = {
      id: newDocumentId(),
      owner,
      provider,
      fileName: name,
      mediaType: mediaTypeOf(name, scan),
      bytes: scan.bytes,
      tokens,
      status: 'ready',
      ...this.lifetime(),
    };
    // A caller who left never learns the id: keep nothing.
    ctx.signal.throwIfAborted();
    await this.commit(doc, text, ctx).catch((error: unknown) => {
      throw error instanceof Unsettled ? error.failure : error;
    });
    ctx.log.info({ document: doc.id, provider, bytes: doc.bytes, tokens: doc.tokens }, 'chat document extracted');
    return doc;
  }

  /** The provider's usage by every document and by the owner's. */
  private async providerUsage(provider: string, owner: string): Promise<ProviderUsage & { mine: ProviderUsage }> {
    const [all, mine] = await Promise.all([this.store.usage(provider), this.store.usage(provider, owner)]).catch(
      unanswered(`the upload cannot be counted against ${provider}'s limits`),
    );
    return { ...all, mine };
  }

  /**
   * One client's share of `limit` (a provider's file count or bytes): the fraction of the text store that
   * CHAT_DOCUMENT_CLIENT_MAX_BYTES gives it (a quarter by default), so one client cannot fill the provider account either.
   */
  private shareOf(limit: number): number {
    const { clientMaxBytes, storeMaxBytes } = this.services.config.chatDocuments;
    return Math.max(1, Math.floor((limit * clientMaxBytes) / storeMaxBytes));
  }

  /** When a document made now is created, and when it goes (CHAT_DOCUMENT_TTL_S). */
  private lifetime(): { createdAt: number; expiresAt: number } {
    const createdAt = Date.now();
    return { createdAt, expiresAt: createdAt + this.services.config.chatDocuments.ttlMs };
  }

  /**
   * Writes the document to the store, all or nothing: refused past the store's bound or the caller's share; and a
   * write that got no answer (Redis may still run it) is settled before answering: found stored, the upload
   * succeeds; barred, it fails with nothing stored. Unsettled after {@link SETTLE_PAUSES_MS}, it throws
   * {@link Unsettled}: the caller answers an error and keeps the provider's file, which the upkeep deletes with the
   * document once Redis answers (so an answered error leaves nothing behind).
   */
  private async commit(doc: StoredDocument, text: string | undefined, ctx: GatewayContext): Promise<void> {
    let outcome;
    try {
      outcome = await this.store.add(doc, text);
    } catch {
      for (const pause of SETTLE_PAUSES_MS) {
        await new Promise((resolve) => setTimeout(resolve, pause));
        try {
          // A caller who left never learns the id: a document that landed is removed, not kept.
          const settled = await this.store.cancel(doc, ctx.signal.aborted ? 'remove' : 'keep');
          ctx.log.warn({ document: doc.id, settled }, 'the store write of a document got no answer; settled');
          if (settled === 'stored') return;
          throw storeUnavailable(`the upload of ${doc.fileName} was not kept: nothing of it is stored`);
        } catch (error) {
          if (error instanceof GatewayError) throw error;
        }
      }
      this.unsettled.set(doc.id, doc);
      ctx.log.warn(
        { document: doc.id },
        'the store write of a document got no answer and Redis does not answer yet; the upkeep removes it once Redis answers',
      );
      throw new Unsettled(
        storeUnavailable(
          `the upload of ${doc.fileName} failed: what the store holds of it is removed once Redis answers`,
        ),
      );
    }
    if (outcome === 'client-full') {
      const held = await this.store.held(doc.owner).catch(() => undefined);
      const size = describeBytes(text === undefined ? 0 : Buffer.byteLength(text));
      throw shareFull(
        `${describeBytes(this.services.config.chatDocuments.clientMaxBytes)} of text`,
        held === undefined ? undefined : describeBytes(held),
        'file',
        `the ${size} of ${doc.fileName}`,
      );
    }
    if (outcome === 'full') {
      const limit = describeBytes(this.services.config.chatDocuments.storeMaxBytes);
      throw new GatewayError(
        ErrorCode.BadUserInput,
        `The gateway keeps at most ${limit} of document text (CHAT_DOCUMENT_STORE_MAX_BYTES) and has no room for the ${describeBytes(Buffer.byteLength(text ?? ''))} of ${doc.fileName}; delete documents you no longer need first.`,
        { argument: 'file', reason: 'DOCUMENT_STORE_FULL' },
      );
    }
  }

  /** Removes the uploads answered with an error whose store write got no answer, and their provider files; how many are left. */
  private async settleUnsettled(): Promise<number> {
    for (const doc of [...this.unsettled.values()]) {
      const settled = await this.store.cancel(doc, 'remove');
      const client = doc.fileId && doc.provider ? this.services.clients.chat.get(doc.provider) : undefined;
      try {
        if (client)
          await deleteFile(client, doc.fileId!, {
            signal: AbortSignal.timeout(CLEANUP_MS),
            requestId: 'chat-documents-upkeep',
          });
      } catch (error) {
        // Kept for the next tick: cancelling again is harmless (the record is gone, the add barred).
        this.services.log.warn(
          { document: doc.id, provider: doc.provider, err: (error as Error).message },
          'could not delete the provider file of an unsettled upload; next tick tries again',
        );
        continue;
      }
      this.unsettled.delete(doc.id);
      this.services.log.info(
        { document: doc.id, settled },
        'settled an upload whose store write got no answer: nothing of it is kept',
      );
    }
    return this.unsettled.size;
  }

  private labelOf(client: ChatClient): ProviderLabel {
    let label = this.labels.get(client.spec.id);
    if (!label) {
      // Replicas sharing Redis share a key prefix; an in-process store is this process's alone, so is its label.
      const { redis } = this.services.config;
      label = providerLabel(
        client.config.apiKey ?? '',
        redis ? `redis:${redis.keyPrefix}` : `process:${this.services.state.replicaId}`,
      );
      this.labels.set(client.spec.id, label);
    }
    return label;
  }

  /** The provider's own count where it has one (Kimi), else the gateway's estimate. */
  private async tokensAt(client: ChatClient, text: string, ctx: GatewayContext): Promise<number> {
    if (!client.spec.countsTokens) return estimateDocumentTokens(text);
    const model = client.models.list[0];
    try {
      return await countTokens(
        client,
        model ? (model.upstreamModel ?? model.id) : '',
        [{ role: 'system', content: text }],
        ctx,
      );
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      ctx.log.warn(
        { provider: client.spec.id, err: (error as Error).message },
        "provider token count failed; the gateway estimates the document's tokens",
      );
      return estimateDocumentTokens(text);
    }
  }

  /** Deletes the provider's copy of a failed upload, on a signal of its own: the caller may be gone. */
  private async discard(client: ChatClient, fileId: string, ctx: GatewayContext): Promise<void> {
    try {
      await deleteFile(client, fileId, {
        signal: AbortSignal.timeout(CLEANUP_MS),
        requestId: ctx.requestId,
        upstreamRequests: ctx.upstreamRequests,
      });
    } catch (error) {
      ctx.services.log.error(
        { requestId: ctx.requestId, provider: client.spec.id, fileId, err: (error as Error).message },
        'could not delete the file of a failed upload; delete it at the provider',
      );
    }
  }

  /**
   * After an upload that got no answer: the provider may have kept the file. The file of its labelled name (unique:
   * it carries the document id) held by no document is that upload's: delete it.
   */
  private async sweep(client: ChatClient, labelled: string, ctx: GatewayContext): Promise<void> {
    const caller = {
      signal: AbortSignal.timeout(CLEANUP_MS),
      requestId: ctx.requestId,
      upstreamRequests: ctx.upstreamRequests,
    };
    try {
      for (const f of (await listFiles(client, caller)).filter((f) => f.filename === labelled)) {
        if (await this.store.holds(client.spec.id, f.id)) continue;
        await deleteFile(client, f.id, caller);
        ctx.services.log.info(
          { requestId: ctx.requestId, provider: client.spec.id, fileId: f.id },
          'deleted the file an unanswered upload left at the provider',
        );
      }
    } catch (error) {
      ctx.services.log.error(
        { requestId: ctx.requestId, provider: client.spec.id, file: labelled, err: (error as Error).message },
        'could not check for a file left by an unanswered upload; look for it at the provider',
      );
    }
  }
}

declare module '../../../context/services.js' {
  interface DomainServices {
    /** Chat documents: uploads, the callers' lists, the texts completions read. */
    chatDocuments: ChatDocuments;
  }
}

function clientFor(provider: string, ctx: GatewayContext): ChatClient {
  const clients = ctx.services.clients.chat;
  const client = clients.get(provider);
  if (!client)
    throw badInput(
      `Unknown chat provider ${JSON.stringify(provider)}; use one of ${[...clients.keys()].join(', ')}, or leave provider out for the gateway to extract the text.`,
      'provider',
    );
  return client;
}

/** An upload that may be stored (its write got no answer): `failure` is the error to answer; its provider file stays for the upkeep. */
class Unsettled extends Error {
  constructor(readonly failure: GatewayError) {
    super(failure.message);
  }
}

/** The refusal of an upload past the caller's share: `share` and `held` as the message names them, `adding` what did not fit. */
const shareFull = (share: string, held: string | undefined, argument: string, adding?: string) =>
  new GatewayError(
    ErrorCode.BadUserInput,
    `Your documents may keep at most ${share} (each client's share, set by CHAT_DOCUMENT_CLIENT_MAX_BYTES)${held === undefined ? '' : ` and keep ${held}`}${adding ? `, too much to add ${adding}` : ''}; delete documents you no longer need (chatDocuments lists them, deleteChatDocument deletes one), or wait for older ones to expire (CHAT_DOCUMENT_TTL_S).`,
    { argument, reason: 'DOCUMENT_CLIENT_SHARE_FULL' },
  );

/** The refusal when the document store (Redis) cannot answer: retryable, never served from a stale copy. */
const storeUnavailable = (what: string) =>
  new GatewayError(
    ErrorCode.InternalServerError,
    `The gateway's document store does not answer right now, so ${what}; retry in a moment.`,
    { reason: ErrorReason.DocumentStoreUnavailable, http: { status: 503 } },
  );

/** A rejection handler that turns a store failure into {@link storeUnavailable}. */
const unanswered =
  (what: string) =>
  (error: unknown): never => {
    if (error instanceof GatewayError) throw error;
    throw storeUnavailable(what);
  };

const notYours = (id: string, at: string) =>
  new GatewayError(
    ErrorCode.NotFound,
    `${at === 'id' ? 'There is no document' : `${at} names no document`} ${JSON.stringify(id.slice(0, 64))} among yours; chatDocuments lists them.`,
    { argument: at },
  );

const newDocumentId = () => `doc_${randomBytes(12).toString('base64url')}`;

/** The name to keep and send on: its last path segment, without control characters, at most 255 characters. */
function fileNameOf(raw: string | undefined): string {
  const name = basename((raw ?? '').replace(/\\/g, '/'))
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  if (!name)
    throw badInput(
      'The file has no name; give its multipart part a filename (e.g. report.pdf): its extension says what it is.',
      'file',
    );
  return name;
}

/** A PDF must say so in its first bytes and end with its trailer: a cut or damaged one is refused before any upload. */
function checkPdf(name: string, scan: FileScan): void {
  if (extensionOf(name) === '.pdf' && scan.kind !== 'pdf')
    throw badInput(`${name} is not a PDF: it does not begin with %PDF-.`, 'file');
  if (scan.kind === 'pdf' && !scan.pdfTrailer)
    throw badInput(
      `${name} is a PDF that does not parse: it does not end with its trailer (startxref … %%EOF), so it is cut short or damaged.`,
      'file',
    );
}

/**
 * What a failed multipart file means for the caller: graphql-upload's errors (`status` 413 past the size limit, 499
 * when the request broke off) and busboy's (`Unexpected end of form`: the body ended before the file did).
 */
function uploadProblem(error: unknown, maxBytes: number): unknown {
  if (error instanceof GatewayError) return error;
  const status = (error as { status?: number }).status;
  const message = (error as Error)?.message ?? String(error);
  if (status === 413)
    return new GatewayError(
      ErrorCode.BadUserInput,
      `The file is larger than ${describeBytes(maxBytes)}, the limit CHAT_DOCUMENT_MAX_BYTES sets; nothing was sent upstream.`,
      { argument: 'file', reason: 'DOCUMENT_TOO_LARGE' },
    );
  if (status === 400)
    return badInput(
      `${message.replace(/ \(https?:[^)]*\)/, '')} Send the file as the part the "map" field names.`,
      'file',
    );
  return new GatewayError(
    ErrorCode.BadUserInput,
    `The upload broke off before the whole file arrived (${message}); nothing was sent upstream. Send the request again.`,
    { argument: 'file', reason: 'UPLOAD_INCOMPLETE' },
  );
}
