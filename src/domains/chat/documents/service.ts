import { createHash, randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import type { GatewayContext } from '../../../context/request.js';
import type { GatewayServices } from '../../../context/services.js';
import { badInput, ErrorCode, GatewayError, upstreamError } from '../../../errors/codes.js';
import type { DocumentStore, ResponseStore, StoredDocument } from '../../../state/index.js';
import type { ChatClient } from '../../../upstreams/chat/client.js';
import { countTokens, deleteFile, extractionFailed, fileContent, listFiles, uploadFile, UploadOutcomeUnknown, type UpstreamFile } from '../../../upstreams/chat/files.js';
import type { FilesApiSpec } from '../../../upstreams/chat/provider.js';
import { describeBytes } from '../../../upstreams/http/body.js';
import { estimateDocumentTokens } from '../contextWindow.js';
import { extensionOf, gatewayExtracts, GATEWAY_FORMATS, mediaTypeOf, scanFile, type FileScan } from './formats.js';
import { DocumentExtraction, refusedDocument } from './extraction/documentExtraction.js';
import { ExtractionRefused } from './extraction/extractors.js';
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
 * Who owns a document: the caller as the gateway tells callers apart (`credentials.client`, `clientKey`: the subject a
 * trusted authority named (a router's end client, a verified token's `sub`), else its API key when GATEWAY_API_KEYS is
 * set, else its address), hashed again, so no key or subject is ever kept.
 */
export function ownerOf(ctx: GatewayContext): string {
  return createHash('sha256').update(`chat-documents\0${ctx.credentials.client ?? ''}`).digest('base64url').slice(0, 32);
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

  constructor(private readonly services: Pick<GatewayServices, 'config' | 'state' | 'log' | 'onClose'>) {
    const { chatDocuments } = services.config;
    this.store = services.state.documents('chat', { maxTextBytes: chatDocuments.storeMaxBytes });
    this.cache = services.state.responseStore('chat-document-text', { maxBytes: chatDocuments.cacheMaxBytes });
    this.extraction = new DocumentExtraction({ maxExtractedBytes: chatDocuments.maxExtractedBytes, timeoutMs: chatDocuments.extractTimeoutMs });
    services.onClose.push(() => this.extraction.close());
  }

  /** The caller's documents, newest first. */
  list(ctx: GatewayContext): Promise<StoredDocument[]> {
    return this.store.list(ownerOf(ctx));
  }

  /**
   * Uploads one file: every check that needs no upstream request first (the provider, its file count, the whole
   * file arrived, its size, type and PDF structure), then the provider's files API or the gateway's own extraction.
   * A file the provider kept for an upload that then failed is deleted before the error is answered.
   */
  async upload(upload: Promise<FileUpload>, providerId: string | null | undefined, ctx: GatewayContext): Promise<StoredDocument> {
    const owner = ownerOf(ctx);
    const client = providerId == null ? undefined : clientFor(providerId, ctx);
    const files = client?.spec.files;
    const usage = client && files ? await this.store.usage(client.spec.id) : undefined;
    if (client && files && usage && usage.files >= files.maxFiles) {
      throw badInput(`${client.spec.id} keeps at most ${files.maxFiles} files per account, and this gateway's documents hold ${usage.files} there; delete documents you no longer need (deleteChatDocument) first.`, 'provider');
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
    if (client && files) return this.toProvider(client, files, usage!, file, name, scan, owner, ctx);
    return this.extractHere(providerId ?? null, file, name, scan, owner, ctx);
  }

  /** Deletes one of the caller's documents, the provider's file first (kept when that fails, so nothing is orphaned). */
  async delete(id: string, ctx: GatewayContext): Promise<boolean> {
    const doc = await this.store.get(id);
    if (!doc || doc.owner !== ownerOf(ctx)) throw notYours(id, 'id');
    if (doc.fileId && doc.provider) {
      const client = ctx.services.clients.chat.get(doc.provider);
      if (client) await deleteFile(client, doc.fileId, ctx);
      else ctx.log.warn({ document: doc.id, provider: doc.provider }, 'chat document deleted; its provider is no longer configured, so its file there was not');
    }
    await this.store.remove(id);
    await this.cache.invalidate([id]);
    return true;
  }

  /** The caller's documents a completion names, checked without any upstream request (ownership, status, count). */
  async forCompletion(ids: readonly string[], ctx: GatewayContext): Promise<StoredDocument[]> {
    if (ids.length > MAX_COMPLETION_DOCUMENTS) throw badInput(`documents names ${ids.length} documents; a completion takes at most ${MAX_COMPLETION_DOCUMENTS}.`, 'input.documents');
    const owner = ownerOf(ctx);
    const seen = new Set<string>();
    return Promise.all(
      ids.map(async (id, i) => {
        const at = `input.documents[${i}]`;
        if (seen.has(id)) throw badInput(`${at} names ${JSON.stringify(id)} a second time; name each document once.`, at);
        seen.add(id);
        const doc = await this.store.get(id);
        if (!doc || doc.owner !== owner) throw notYours(id, at);
        if (doc.status === 'unavailable') throw badInput(`${at} ${JSON.stringify(id)} (${doc.fileName}) is UNAVAILABLE: ${doc.provider} no longer has its file; delete it and upload the file again.`, at);
        return doc;
      }),
    );
  }

  /** A document's text: kept here, or cached, or read from its provider once (then cached). */
  async text(doc: StoredDocument, ctx: GatewayContext): Promise<string> {
    if (!doc.fileId) {
      const text = await this.store.text(doc.id);
      if (text === undefined) throw new GatewayError(ErrorCode.InternalServerError, `The text of document ${doc.id} (${doc.fileName}) cannot be read from the gateway's document store right now; retry shortly.`);
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
    if (!client) throw badInput(`Document ${doc.id} (${doc.fileName}) is kept by ${doc.provider}, which this gateway no longer has configured; upload the file again.`, 'input.documents');
    const text = await fileContent(client, doc.fileId!, ctx);
    if (text === undefined) {
      await this.store.setStatus(doc.id, 'unavailable');
      throw badInput(`Document ${doc.id} (${doc.fileName}) is gone from ${client.spec.id} (its file was deleted outside the gateway); delete the document and upload the file again.`, 'input.documents');
    }
    await this.cache.set(doc.id, text, TEXT_TTL_MS, [doc.id]);
    return text;
  }

  private async toProvider(client: ChatClient, files: FilesApiSpec, usage: { files: number; bytes: number }, file: FileUpload, name: string, scan: FileScan, owner: string, ctx: GatewayContext): Promise<StoredDocument> {
    const provider = client.spec.id;
    const ext = extensionOf(name);
    if (!files.extensions.has(ext)) {
      throw badInput(`${provider}'s files API does not read ${ext ? `${ext} files` : 'files without an extension'} (${name}); it takes ${[...files.extensions].join(' ')}.`, 'file');
    }
    if (scan.bytes > files.maxFileBytes) throw badInput(`${name} is ${describeBytes(scan.bytes)}; ${provider} takes files of at most ${describeBytes(files.maxFileBytes)}.`, 'file');
    if (usage.bytes + scan.bytes > files.maxTotalBytes) {
      throw badInput(`${provider} keeps at most ${describeBytes(files.maxTotalBytes)} of files per account; this gateway's documents hold ${describeBytes(usage.bytes)} there, too much to add ${name} (${describeBytes(scan.bytes)}). Delete documents you no longer need first.`, 'file');
    }
    checkPdf(name, scan);
    // A text file's text is the file: past what the gateway reads back it could never be placed in a prompt.
    if (scan.kind === 'text' && scan.bytes > client.http.maxResponseBytes) {
      throw badInput(`${name} is ${describeBytes(scan.bytes)} of text; the gateway reads at most ${describeBytes(client.http.maxResponseBytes)} of extracted text back from ${provider} (UPSTREAM_MAX_RESPONSE_BYTES), and no model's context window holds that much. Split it, or upload the parts you need.`, 'file');
    }
    const mediaType = mediaTypeOf(name, scan);
    const started = Date.now();
    let uploaded: UpstreamFile;
    try {
      uploaded = await uploadFile(client, { name, mediaType, bytes: scan.bytes, open: (): Readable => file.createReadStream() }, ctx);
    } catch (error) {
      if (!(error instanceof UploadOutcomeUnknown)) throw error;
      await this.sweep(client, name, scan.bytes, started, ctx);
      throw error.failure;
    }
    try {
      if (uploaded.status === 'error') throw extractionFailed(client, uploaded);
      const text = await fileContent(client, uploaded.id, ctx);
      if (text === undefined) throw upstreamError(ErrorCode.UpstreamError, `The ${provider} service lost file ${uploaded.id} right after its upload; upload it again.`, { upstream: provider });
      if (!text.trim()) throw badInput(`${provider} extracted no text from ${name}; a document needs text the model can read.`, 'file');
      const doc: StoredDocument = { id: newDocumentId(), owner, provider, fileId: uploaded.id, fileName: name, mediaType, bytes: scan.bytes, tokens: await this.tokensAt(client, text, ctx), status: 'ready', createdAt: Date.now() };
      // A caller who left never learns the id: keep nothing (the file is deleted below).
      ctx.signal.throwIfAborted();
      await this.cache.set(doc.id, text, TEXT_TTL_MS, [doc.id]);
      await this.store.add(doc);
      ctx.log.info({ document: doc.id, provider, bytes: doc.bytes, tokens: doc.tokens }, 'chat document uploaded');
      return doc;
    } catch (error) {
      await this.discard(client, uploaded.id, ctx);
      throw error;
    }
  }

  private async extractHere(provider: string | null, file: FileUpload, name: string, scan: FileScan, owner: string, ctx: GatewayContext): Promise<StoredDocument> {
    checkPdf(name, scan);
    if (!gatewayExtracts(name, scan)) {
      const what = scan.kind === 'text' ? `${extensionOf(name)} files` : 'binary files of this type';
      const elsewhere = ctx.services.clients.chat.get('moonshot')?.spec.files ? '; upload it with provider "moonshot", whose files API reads Word, slides, images and more' : '';
      throw badInput(`The gateway does not extract text from ${what} (${name}); it reads ${GATEWAY_FORMATS}${elsewhere}.`, 'file');
    }
    let text: string;
    let tokens: number;
    try {
      ({ text, tokens } = await this.extraction.extract(owner, scan.kind === 'pdf' ? 'pdf' : 'text', file.createReadStream(), name, ctx.signal));
    } catch (error) {
      if (!(error instanceof ExtractionRefused)) throw error;
      const elsewhere = ctx.services.clients.chat.get('moonshot')?.spec.files ? ', or upload it with provider "moonshot", whose files API reads it' : '';
      throw refusedDocument(name, scan.kind === 'pdf' ? 'pdf' : 'text', error, { maxExtractedBytes: this.services.config.chatDocuments.maxExtractedBytes, timeoutMs: this.services.config.chatDocuments.extractTimeoutMs }, elsewhere);
    }
    if (!text.trim()) throw badInput(`${name} has no text to read (a scanned PDF has only images of its pages); the model needs text.`, 'file');
    const doc: StoredDocument = { id: newDocumentId(), owner, provider, fileName: name, mediaType: mediaTypeOf(name, scan), bytes: scan.bytes, tokens, status: 'ready', createdAt: Date.now() };
    // A caller who left never learns the id: keep nothing.
    ctx.signal.throwIfAborted();
    if ((await this.store.add(doc, text)) === 'full') {
      const limit = describeBytes(this.services.config.chatDocuments.storeMaxBytes);
      throw new GatewayError(ErrorCode.BadUserInput, `The gateway keeps at most ${limit} of document text (CHAT_DOCUMENT_STORE_MAX_BYTES) and has no room for the ${describeBytes(Buffer.byteLength(text))} of ${name}; delete documents you no longer need first.`, { argument: 'file', reason: 'DOCUMENT_STORE_FULL' });
    }
    ctx.log.info({ document: doc.id, provider, bytes: doc.bytes, tokens: doc.tokens }, 'chat document extracted');
    return doc;
  }

  /** The provider's own count where it has one (Kimi), else the gateway's estimate. */
  private async tokensAt(client: ChatClient, text: string, ctx: GatewayContext): Promise<number> {
    if (!client.spec.countsTokens) return estimateDocumentTokens(text);
    const model = client.models.list[0];
    try {
      return await countTokens(client, model ? (model.upstreamModel ?? model.id) : '', [{ role: 'system', content: text }], ctx);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      ctx.log.warn({ provider: client.spec.id, err: (error as Error).message }, 'provider token count failed; the gateway estimates the document\'s tokens');
      return estimateDocumentTokens(text);
    }
  }

  /** Deletes the provider's copy of a failed upload, on a signal of its own: the caller may be gone. */
  private async discard(client: ChatClient, fileId: string, ctx: GatewayContext): Promise<void> {
    try {
      await deleteFile(client, fileId, { signal: AbortSignal.timeout(CLEANUP_MS), requestId: ctx.requestId, upstreamRequests: ctx.upstreamRequests });
    } catch (error) {
      ctx.services.log.error({ requestId: ctx.requestId, provider: client.spec.id, fileId, err: (error as Error).message }, 'could not delete the file of a failed upload; delete it at the provider');
    }
  }

  /**
   * After an upload that got no answer: the provider may have kept the file. Its newest file of this name and size,
   * made since the upload began and held by no document, is that upload's: delete it.
   */
  private async sweep(client: ChatClient, name: string, bytes: number, startedMs: number, ctx: GatewayContext): Promise<void> {
    const caller = { signal: AbortSignal.timeout(CLEANUP_MS), requestId: ctx.requestId, upstreamRequests: ctx.upstreamRequests };
    try {
      const candidates = (await listFiles(client, caller)).filter((f) => f.filename === name && f.bytes === bytes && f.createdAt * 1000 >= startedMs - 60_000).sort((a, b) => b.createdAt - a.createdAt);
      for (const f of candidates) {
        if (await this.store.holds(client.spec.id, f.id)) continue;
        await deleteFile(client, f.id, caller);
        ctx.services.log.info({ requestId: ctx.requestId, provider: client.spec.id, fileId: f.id }, 'deleted the file an unanswered upload left at the provider');
        return;
      }
    } catch (error) {
      ctx.services.log.error({ requestId: ctx.requestId, provider: client.spec.id, file: name, err: (error as Error).message }, 'could not check for a file left by an unanswered upload; look for it at the provider');
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
  if (!client) throw badInput(`Unknown chat provider ${JSON.stringify(provider)}; use one of ${[...clients.keys()].join(', ')}, or leave provider out for the gateway to extract the text.`, 'provider');
  return client;
}

const notYours = (id: string, at: string) =>
  new GatewayError(ErrorCode.NotFound, `${at === 'id' ? 'There is no document' : `${at} names no document`} ${JSON.stringify(id.slice(0, 64))} among yours; chatDocuments lists them.`, { argument: at });

const newDocumentId = () => `doc_${randomBytes(12).toString('base64url')}`;

/** The name to keep and send on: its last path segment, without control characters, at most 255 characters. */
function fileNameOf(raw: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const name = basename((raw ?? '').replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  if (!name) throw badInput('The file has no name; give its multipart part a filename (e.g. report.pdf): its extension says what it is.', 'file');
  return name;
}

/** A PDF must say so in its first bytes and end with its trailer: a cut or damaged one is refused before any upload. */
function checkPdf(name: string, scan: FileScan): void {
  if (extensionOf(name) === '.pdf' && scan.kind !== 'pdf') throw badInput(`${name} is not a PDF: it does not begin with %PDF-.`, 'file');
  if (scan.kind === 'pdf' && !scan.pdfTrailer) throw badInput(`${name} is a PDF that does not parse: it does not end with its trailer (startxref … %%EOF), so it is cut short or damaged.`, 'file');
}

/**
 * What a failed multipart file means for the caller: graphql-upload's errors (`status` 413 past the size limit, 499
 * when the request broke off) and busboy's (`Unexpected end of form`: the body ended before the file did).
 */
function uploadProblem(error: unknown, maxBytes: number): unknown {
  if (error instanceof GatewayError) return error;
  const status = (error as { status?: number }).status;
  const message = (error as Error)?.message ?? String(error);
  if (status === 413) return new GatewayError(ErrorCode.BadUserInput, `The file is larger than ${describeBytes(maxBytes)}, the limit CHAT_DOCUMENT_MAX_BYTES sets; nothing was sent upstream.`, { argument: 'file', reason: 'DOCUMENT_TOO_LARGE' });
  if (status === 400) return badInput(`${message.replace(/ \(https?:[^)]*\)/, '')} Send the file as the part the "map" field names.`, 'file');
  return new GatewayError(ErrorCode.BadUserInput, `The upload broke off before the whole file arrived (${message}); nothing was sent upstream. Send the request again.`, { argument: 'file', reason: 'UPLOAD_INCOMPLETE' });
}
