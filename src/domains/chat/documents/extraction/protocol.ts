/** What the gateway and its extractor processes (child.ts) say to each other: one job, one answer, or an exit. */

/** The exit code of an extractor whose job passed its budget of extracted bytes. */
export const OVER_BUDGET_EXIT = 86;

/** Characters of text from which the extractor counts its tokens itself; a shorter text's the gateway counts. */
export const TOKENS_HERE_FROM = 256 * 1024;

/** The extractor's first message: PDF.js is loaded, jobs may come (their time limit runs from here, not from the start). */
export interface ExtractorReady {
  ready: true;
}

/** One document to read. */
export interface ExtractionJob {
  /** The spooled file. */
  path: string;
  kind: 'pdf' | 'text';
  /** Bytes of decoded streams and text the document may yield (CHAT_DOCUMENT_MAX_EXTRACTED_BYTES). */
  maxBytes: number;
}

/** The answer: its text, or why there is none. `rss` is the extractor's resident set after the job. */
export type ExtractionAnswer =
  | { ok: true; text: string; pages: number; tokens: number | undefined; rss: number }
  | { ok: false; reason: 'invalid' | 'encrypted'; message: string; rss: number };
