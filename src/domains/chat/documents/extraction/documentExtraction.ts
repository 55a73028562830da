import type { Readable } from 'node:stream';
import { badInput, ErrorCode, GatewayError } from '../../../../errors/codes.js';
import { describeBytes } from '../../../../upstreams/http/body.js';
import { FairQueue } from '../../../../upstreams/http/fairQueue.js';
import { estimateDocumentTokens } from '../../contextWindow.js';
import { Extractors, type Extracted, type ExtractionRefused, type ExtractorOptions } from './extractors.js';
import { Spool, sweepLeftovers } from './spool.js';

/** Documents read at once, by as many extractor processes (a 2-core host's worth). */
export const EXTRACTORS = 2;
/** Documents one client may have spooled, waiting or being read at once: its share of the spool's disk. */
export const CLIENT_DOCUMENTS_IN_LINE = 8;

/**
 * The gateway's own extraction of a document's text, bounded in memory, time and fairness: the upload is spooled to
 * disk (a file waiting its turn holds no memory), waits in its client's line (at most one document of a client is read
 * at a time, and the extractors go to the clients in turn, so one client's slow file never holds another's), and is
 * read in an extractor process with a byte budget and a time limit (extractors.ts). The spool file goes when the
 * extraction ends, whichever way.
 */
export class DocumentExtraction {
  readonly spool: Spool;
  readonly extractors: Extractors;
  // FairQueue with 2 slots keeps one for the clients not holding the other (perClient = slots - 1 = 1).
  private readonly line = new FairQueue(EXTRACTORS, "the gateway's document extractor");
  /** Documents in the spool by client. */
  private readonly held = new Map<string, number>();

  constructor(options: ExtractorOptions & { spoolRoot?: string }) {
    this.spool = new Spool(options.spoolRoot);
    this.extractors = new Extractors({ warm: EXTRACTORS, ...options });
    // What a gateway that died left in the spool goes at start-up.
    void sweepLeftovers(options.spoolRoot).catch(() => undefined);
  }

  /** Documents waiting for an extractor, every client together. */
  get waiting(): number {
    return this.line.waiting;
  }

  /**
   * Reads `file` (called `name`) for `owner`: its text, pages and tokens; RATE_LIMITED when the owner has
   * {@link CLIENT_DOCUMENTS_IN_LINE} already. Aborting `signal` (the caller left) takes it out of the line, or ends its
   * extractor.
   */
  async extract(
    owner: string,
    kind: 'pdf' | 'text',
    file: Readable,
    name: string,
    signal: AbortSignal,
  ): Promise<Required<Extracted>> {
    const held = this.held.get(owner) ?? 0;
    if (held >= CLIENT_DOCUMENTS_IN_LINE) {
      throw new GatewayError(
        ErrorCode.RateLimited,
        `${CLIENT_DOCUMENTS_IN_LINE} of your documents are being read or waiting to be (the most one client may have); wait for their answers, then upload ${name} again.`,
        { argument: 'file', max: CLIENT_DOCUMENTS_IN_LINE },
      );
    }
    this.held.set(owner, held + 1);
    try {
      return await this.read(owner, kind, file, signal);
    } finally {
      const left = this.held.get(owner)! - 1;
      if (left) this.held.set(owner, left);
      else this.held.delete(owner);
    }
  }

  private async read(
    owner: string,
    kind: 'pdf' | 'text',
    file: Readable,
    signal: AbortSignal,
  ): Promise<Required<Extracted>> {
    const path = await this.spool.write(file);
    try {
      let release: () => void;
      try {
        release = await this.line.acquire(owner, signal);
      } catch (error) {
        throw signal.aborted ? signal.reason : error;
      }
      let read: Extracted;
      try {
        read = await this.extractors.run({ path, kind }, signal);
      } finally {
        release();
      }
      return { ...read, tokens: read.tokens ?? (await estimateDocumentTokens(read.text)) };
    } finally {
      await this.spool.remove(path);
    }
  }

  async close(): Promise<void> {
    this.extractors.close();
    await this.spool.close();
  }
}

/** `extensions.reason` of a document stopped at an extraction limit (`extensions.setting` names which, `max` its value). */
export const EXTRACTION_LIMIT = 'EXTRACTION_LIMIT';

/**
 * What the caller is told of a document the extractor refused: the file, why, the limit that stopped it and what to do
 * instead. `elsewhere` names a files API that reads it, when one is configured.
 */
export function refusedDocument(
  name: string,
  kind: 'pdf' | 'text',
  refusal: ExtractionRefused,
  limits: ExtractorOptions,
  elsewhere = '',
): GatewayError {
  const split = `split it into smaller files${elsewhere}`;
  switch (refusal.reason) {
    case 'encrypted':
      return badInput(`${name} is a PDF the gateway cannot read: it is encrypted.`, 'file');
    case 'invalid':
      return badInput(
        kind === 'pdf'
          ? `${name} is a PDF the gateway cannot read: it does not parse (${refusal.message}).`
          : `${name} is not UTF-8 text the gateway can read (${refusal.message}).`,
        'file',
      );
    case 'extracted':
      return new GatewayError(
        ErrorCode.BadUserInput,
        `${name} yields more than ${describeBytes(limits.maxExtractedBytes)} of decompressed streams and text, the most the gateway reads of one document (CHAT_DOCUMENT_MAX_EXTRACTED_BYTES); it was stopped there and nothing was kept. ${capitalized(split)}.`,
        {
          argument: 'file',
          reason: EXTRACTION_LIMIT,
          setting: 'CHAT_DOCUMENT_MAX_EXTRACTED_BYTES',
          max: limits.maxExtractedBytes,
        },
      );
    case 'time':
      return new GatewayError(
        ErrorCode.BadUserInput,
        `Reading ${name} took longer than ${limits.timeoutMs} ms, the most the gateway spends on one document (CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS); it was stopped and nothing was kept. ${capitalized(split)}.`,
        {
          argument: 'file',
          reason: EXTRACTION_LIMIT,
          setting: 'CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS',
          max: limits.timeoutMs,
        },
      );
    case 'memory':
      return badInput(
        `${name} needs more memory to read than the gateway gives one document (${refusal.message}); it was stopped and nothing was kept. ${capitalized(split)}.`,
        'file',
      );
  }
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
