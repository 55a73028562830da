import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describeBytes } from '../../../../upstreams/http/body.js';
import { OVER_BUDGET_EXIT, type ExtractionAnswer, type ExtractionJob, type ExtractorReady } from './protocol.js';

/** Old-space limit of an extractor's JS heap (its decoded buffers are bounded by the job's byte budget instead). */
export const EXTRACTOR_HEAP_MB = 512;
/** An extractor whose resident set is past this after a job is ended, so what a big document took goes back. */
const RECYCLE_RSS_BYTES = 384 * 1024 * 1024;
/** How often a running extractor's resident set is read (Linux /proc), the backstop to the byte budget. */
const RSS_POLL_MS = 100;
/** An idle extractor ends after this long, giving its memory back. */
const IDLE_MS = 5 * 60_000;

/** Why a document yielded no text. */
export type RefusalReason = 'invalid' | 'encrypted' | 'extracted' | 'memory' | 'time';

/** A document the extractor could not, or would not, read. */
export class ExtractionRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

export interface Extracted {
  text: string;
  pages: number;
  /** Counted by the extractor for a long text (`TOKENS_HERE_FROM` in protocol.ts, characters or more). */
  tokens?: number;
}

export interface ExtractorOptions {
  /** Extractors kept started, running or idle, so a job rarely waits for a process to start. @default 0 */
  warm?: number;
  /** CHAT_DOCUMENT_MAX_EXTRACTED_BYTES. */
  maxExtractedBytes: number;
  /** CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS. */
  timeoutMs: number;
}

const PAGE_BYTES = 4096;

/** Resident bytes of `pid` (Linux), undefined where /proc cannot tell. */
function residentBytes(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return undefined;
  }
}

/**
 * The extractor processes (child.ts): one job at a time each, kept warm between jobs, and ended (SIGKILL) when a job is
 * refused, runs past CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS, is abandoned by its caller, or leaves the process large, so
 * whatever the document took returns to the operating system. The caller bounds how many run at once (documents'
 * FairQueue); a new process is started when none is idle.
 */
export class Extractors {
  private readonly idle: Extractor[] = [];
  private readonly all = new Set<Extractor>();
  private closed = false;

  constructor(private readonly options: ExtractorOptions) {}

  /** Pids of the processes alive now. */
  get pids(): number[] {
    return [...this.all].map((e) => e.child.pid!).filter(Boolean);
  }

  async run(job: Omit<ExtractionJob, 'maxBytes'>, signal: AbortSignal): Promise<Extracted> {
    if (this.closed) throw new Error('the document extractors are closed');
    signal.throwIfAborted();
    const extractor = this.idle.pop() ?? this.start();
    extractor.busy();
    this.warmUp();
    let answer: ExtractionAnswer;
    try {
      answer = await extractor.run({ ...job, maxBytes: this.options.maxExtractedBytes }, this.options, signal);
    } catch (error) {
      extractor.end();
      this.warmUp();
      throw error;
    }
    if (!answer.ok || answer.rss > RECYCLE_RSS_BYTES || this.closed) extractor.end();
    else this.idle.push(extractor);
    this.warmUp();
    if (!answer.ok) throw new ExtractionRefused(answer.reason, answer.message);
    return { text: answer.text, pages: answer.pages, tokens: answer.tokens };
  }

  close(): void {
    this.closed = true;
    for (const e of this.all) e.end();
  }

  /** Starts idle extractors up to `warm` (a refused job's replacement starts while nothing waits for it). */
  private warmUp(): void {
    while (!this.closed && this.all.size < (this.options.warm ?? 0)) this.idle.push(this.start());
  }

  private start(): Extractor {
    const extractor = new Extractor(() => {
      this.all.delete(extractor);
      const at = this.idle.indexOf(extractor);
      if (at >= 0) this.idle.splice(at, 1);
    });
    this.all.add(extractor);
    return extractor;
  }
}

/** child.ts as this build has it: TypeScript under tests and tsx (run through tsx's loader), JavaScript from dist/. */
function childEntry(): { path: string; execArgv: string[] } {
  const typescript = import.meta.url.endsWith('.ts');
  const tsx = () =>
    pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs')).href;
  return {
    path: fileURLToPath(new URL(typescript ? './child.ts' : './child.js', import.meta.url)),
    execArgv: typescript ? ['--import', tsx()] : [],
  };
}

class Extractor {
  readonly child: ChildProcess;
  private idleTimer: NodeJS.Timeout | undefined;
  private ended = false;
  private readonly gone: () => void;
  /** Settles when the process has loaded PDF.js, or has ended before. */
  private readonly loaded: Promise<void>;

  constructor(onGone: () => void) {
    let called = false;
    this.gone = () => {
      if (!called) onGone();
      called = true;
    };
    const entry = childEntry();
    this.child = fork(entry.path, [], {
      execArgv: [...entry.execArgv, `--max-old-space-size=${EXTRACTOR_HEAP_MB}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      // It reads untrusted files: it gets none of the gateway's keys.
      env: { PATH: process.env.PATH ?? '', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) },
    });
    this.child.once('exit', () => {
      this.ended = true;
      clearTimeout(this.idleTimer);
      this.gone();
    });
    this.child.on('error', () => undefined);
    this.loaded = new Promise<void>((resolve, reject) => {
      const onMessage = (m: Partial<ExtractorReady>) => {
        if (!m.ready) return;
        this.child.off('exit', onExit);
        this.child.off('message', onMessage);
        resolve();
      };
      const onExit = (code: number | null, sig: NodeJS.Signals | null) =>
        reject(new Error(`the document extractor stopped as it started (exit ${code ?? sig})`));
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
    });
    this.loaded.catch(() => undefined);
    // An idle extractor never keeps the gateway running; a job's own timer does while it runs.
    this.child.unref();
    this.child.channel?.unref();
    this.idleTimer = setTimeout(() => this.end(), IDLE_MS).unref();
  }

  /** Resolves once the process has loaded PDF.js (at once after that); rejects if it ends first or `signal` aborts. */
  private ready(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      // Started, the process keeps the gateway running until it is ready (a job is waiting for it).
      this.child.ref();
      this.loaded.then(resolve, reject).finally(() => {
        signal.removeEventListener('abort', onAbort);
        this.child.unref();
      });
    });
  }

  busy(): void {
    clearTimeout(this.idleTimer);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.child.kill('SIGKILL');
    this.gone();
  }

  async run(job: ExtractionJob, options: ExtractorOptions, signal: AbortSignal): Promise<ExtractionAnswer> {
    await this.ready(signal);
    return new Promise((resolve, reject) => {
      const { child } = this;
      let overMemory = false;
      const maxRss = 2 * options.maxExtractedBytes + (EXTRACTOR_HEAP_MB + 256) * 1024 * 1024;
      const poll = setInterval(() => {
        const rss = residentBytes(child.pid!);
        if (rss !== undefined && rss > maxRss) {
          overMemory = true;
          child.kill('SIGKILL');
        }
      }, RSS_POLL_MS);
      const timer = setTimeout(() => {
        done();
        reject(
          new ExtractionRefused(
            'time',
            `reading it took longer than ${options.timeoutMs} ms (CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS)`,
          ),
        );
      }, options.timeoutMs);
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const onMessage = (answer: ExtractionAnswer) => {
        done();
        this.idleTimer = setTimeout(() => this.end(), IDLE_MS).unref();
        resolve(answer);
      };
      const onExit = (code: number | null, sig: NodeJS.Signals | null) => {
        done();
        if (code === OVER_BUDGET_EXIT)
          reject(
            new ExtractionRefused(
              'extracted',
              `it decompresses to more than ${describeBytes(options.maxExtractedBytes)} (CHAT_DOCUMENT_MAX_EXTRACTED_BYTES)`,
            ),
          );
        else if (overMemory)
          reject(new ExtractionRefused('memory', `reading it took more than ${describeBytes(maxRss)} of memory`));
        // V8 aborts a process whose heap passed --max-old-space-size.
        else if (sig === 'SIGABRT' || sig === 'SIGTRAP' || code === 134)
          reject(new ExtractionRefused('memory', `reading it needs more than ${EXTRACTOR_HEAP_MB} MiB of heap`));
        else reject(new Error(`the document extractor stopped (exit ${code ?? sig})`));
      };
      const done = () => {
        clearInterval(poll);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      child.once('message', onMessage);
      child.once('exit', onExit);
      child.send(job);
    });
  }
}
