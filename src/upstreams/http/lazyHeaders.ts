import type { Dispatcher } from 'undici';
import { parseHeaders, undiciErrors } from './undici.js';

type Controller = Dispatcher.DispatchController;
type Handler = Dispatcher.DispatchHandler;

/**
 * The innermost interceptor (client.ts): each answer's headers reach the interceptors and the caller as a record that
 * is made only if read as a whole. undici hands a handler of its current interface (`onResponseStart`) the headers
 * parsed into an object (`UnwrapHandler`: a lower-cased name and a latin1 string per header, ≈ 2.5 µs and 1 KB for a
 * Graph answer's ten), while an unshared lookup reads two of them (`content-length`, `content-encoding`) and Graph's
 * error path a few more. So the pool gets a handler of undici's raw-header interface (`onHeaders`, as undici's own
 * `UnwrapHandler` is), which drives the chain above it with {@link lazyHeaders}: reading one header by name scans the
 * raw list; anything else (keys, spreading, `in`, writing) first parses the whole list with undici's `parseHeaders`
 * into the record's target, so what it shows is exactly what undici's record would (bench/PROFILE.md, eighteenth pass).
 */
export function rawHeaders(): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => dispatch(opts, new RawAnswer(handler) as unknown as Handler);
}

const kResume = Symbol('resume');
const NO_TRAILERS: Record<string, string | string[]> = Object.freeze({});

/** What the chain's handlers are given to pause, resume and abort the request, as undici's `UnwrapController`. */
class RawController implements Controller {
  private paused_ = false;
  private aborted_ = false;
  private reason_: Error | null = null;
  [kResume]: (() => void) | null = null;
  rawHeaders: Buffer[] | null = null;
  rawTrailers: Buffer[] | null = null;

  constructor(private readonly abort_: (reason: Error) => void) {}

  pause(): void {
    this.paused_ = true;
  }

  resume(): void {
    if (this.paused_) {
      this.paused_ = false;
      this[kResume]?.();
    }
  }

  abort(reason: Error): void {
    if (!this.aborted_) {
      this.aborted_ = true;
      this.reason_ = reason;
      this.abort_(reason);
    }
  }

  get aborted(): boolean {
    return this.aborted_;
  }

  get reason(): Error | null {
    return this.reason_;
  }

  get paused(): boolean {
    return this.paused_;
  }
}

/** undici's raw-header handler interface, as `UnwrapHandler` implements it for a handler of the current one. */
class RawAnswer {
  private controller: RawController | undefined;

  constructor(private readonly handler: Handler) {}

  onConnect(abort: (reason: Error) => void, context?: unknown): void {
    this.controller = new RawController(abort);
    this.handler.onRequestStart?.(this.controller, context);
  }

  onResponseStarted(): void {
    (this.handler as { onResponseStarted?: () => void }).onResponseStarted?.();
  }

  onUpgrade(statusCode: number, raw: Buffer[], socket: never): void {
    this.controller!.rawHeaders = raw;
    this.handler.onRequestUpgrade?.(this.controller!, statusCode, parseHeaders(raw), socket);
  }

  onHeaders(statusCode: number, raw: Buffer[], resume: () => void, statusMessage?: string): boolean {
    const controller = this.controller!;
    controller[kResume] = resume;
    controller.rawHeaders = raw;
    this.handler.onResponseStart?.(controller, statusCode, lazyHeaders(raw), statusMessage);
    return !controller.paused;
  }

  onData(chunk: Buffer): boolean {
    this.handler.onResponseData?.(this.controller!, chunk);
    return !this.controller!.paused;
  }

  onComplete(rawTrailers: Buffer[]): void {
    this.controller!.rawTrailers = rawTrailers;
    // Almost every answer has none: one shared empty record, not one per answer.
    this.handler.onResponseEnd?.(this.controller!, rawTrailers.length === 0 ? NO_TRAILERS : parseHeaders(rawTrailers));
  }

  onError(error: Error): void {
    if (!this.handler.onResponseError) throw new undiciErrors.InvalidArgumentError('invalid onError method');
    // As `UnwrapHandler`: the controller is undefined when the request failed before it was sent.
    this.handler.onResponseError(this.controller!, error);
  }
}

/**
 * A record of the raw header list `raw` (undici's: name and value buffers in turn), as `parseHeaders(raw)` would make
 * it, made only when something other than a read by name needs it. A read by name answers from the raw list when the
 * name's header appears once with an ASCII name (its value in latin1, as undici decodes it); a name repeated, or any
 * other operation, parses the whole list first.
 */
export function lazyHeaders(raw: Buffer[]): Record<string, string | string[] | undefined> {
  return new Proxy({}, new LazyRecord(raw));
}

class LazyRecord implements ProxyHandler<Record<string, string | string[]>> {
  private raw: Buffer[] | undefined;

  constructor(raw: Buffer[]) {
    this.raw = raw;
  }

  get(target: Record<string, string | string[]>, key: string | symbol, receiver: unknown): unknown {
    const raw = this.raw;
    if (raw !== undefined && typeof key === 'string') {
      const at = onlyIndexOf(raw, key);
      if (at >= 0) return raw[at + 1].toString('latin1');
      if (at === NONE) return Reflect.get(target, key, receiver);
    }
    return Reflect.get(this.parsed(target), key, receiver);
  }

  has(target: Record<string, string | string[]>, key: string | symbol): boolean {
    return Reflect.has(this.parsed(target), key);
  }

  ownKeys(target: Record<string, string | string[]>): ArrayLike<string | symbol> {
    return Reflect.ownKeys(this.parsed(target));
  }

  getOwnPropertyDescriptor(target: Record<string, string | string[]>, key: string | symbol) {
    return Reflect.getOwnPropertyDescriptor(this.parsed(target), key);
  }

  defineProperty(target: Record<string, string | string[]>, key: string | symbol, descriptor: PropertyDescriptor) {
    return Reflect.defineProperty(this.parsed(target), key, descriptor);
  }

  deleteProperty(target: Record<string, string | string[]>, key: string | symbol): boolean {
    return Reflect.deleteProperty(this.parsed(target), key);
  }

  set(target: Record<string, string | string[]>, key: string | symbol, value: unknown, receiver: unknown): boolean {
    return Reflect.set(this.parsed(target), key, value, receiver);
  }

  preventExtensions(target: Record<string, string | string[]>): boolean {
    return Reflect.preventExtensions(this.parsed(target));
  }

  /** The target, with undici's record of the raw list parsed into it once. */
  private parsed(target: Record<string, string | string[]>): Record<string, string | string[]> {
    const raw = this.raw;
    if (raw !== undefined) {
      this.raw = undefined;
      parseHeaders(raw, target);
    }
    return target;
  }
}

/** No header of that name: the record has none of its own either. */
const NONE = -1;
/** Not answered from the raw list (a name repeated or not ASCII, a value not a buffer): the record must be made. */
const PARSE = -2;

/**
 * The index in `raw` of the one header whose lower-cased name is `key`, {@link NONE}, or {@link PARSE}. A name is
 * lower-cased as undici's `parseHeaders` does (`toLowerCase` of its latin1 text), which for an ASCII name is this.
 */
function onlyIndexOf(raw: Buffer[], key: string): number {
  const length = key.length;
  let found = NONE;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (typeof name === 'string') return PARSE;
    if (name.length !== length) continue;
    let j = 0;
    for (; j < length; j++) {
      let c = name[j];
      if (c >= 0x80) return PARSE;
      if (c >= 0x41 && c <= 0x5a) c += 0x20;
      if (c !== key.charCodeAt(j)) break;
    }
    if (j < length) continue;
    if (found !== NONE || !Buffer.isBuffer(raw[i + 1])) return PARSE;
    found = i;
  }
  return found;
}
