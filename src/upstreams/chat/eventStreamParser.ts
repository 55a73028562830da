/**
 * An incremental server-sent-events parser (the WHATWG "event stream interpretation", minus `retry`/`id` which chat
 * providers do not use). Feed it bytes as they arrive; it returns the events completed so far. Events split across
 * TCP chunks are reassembled, CRLF / CR / LF line ends are all accepted, `:` comments (DeepSeek's `: keep-alive`)
 * are dropped, and several `data:` lines of one event are joined with `\n`. Bytes that are not UTF-8, and one event
 * longer than `maxEventLength`, throw {@link SseStreamError}: the parser holds at most one event, never a stream.
 */
export interface SseEvent {
  /** The `event:` field, `message` when absent. */
  event: string;
  data: string;
}

/** The stream cannot be read on: the message says what it sent, e.g. `bytes that are not UTF-8`. */
export class SseStreamError extends Error {
  constructor(
    message: string,
    readonly kind: 'encoding' | 'size',
  ) {
    super(message);
    this.name = 'SseStreamError';
  }
}

/** What a chunk that completes no event returns (most chunks of a long event; never changed). */
const NONE = Object.freeze([]) as unknown as SseEvent[];

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  /**
   * The unfinished line, as the pieces that arrived: each chunk is scanned once for line ends and kept as a piece,
   * joined only when its line ends, so a long line costs its length, not its length times its chunks.
   */
  private partial: string[] = [];
  private partialLength = 0;
  /** Characters of the event being read: its data lines (the unfinished line is `partialLength`). */
  private pending = 0;

  /** @param maxEventLength characters one event (its lines up to the blank line) may have. @default Infinity */
  constructor(private readonly maxEventLength = Number.POSITIVE_INFINITY) {}
  /**
   * The event's data lines: the first alone (a chat provider's event has one), the others, when any, in `more`; joined
   * only for an event of several lines.
   */
  private data: string | undefined;
  private more: string[] | undefined;
  private event = '';
  /** A chunk ended on `\r`: a `\n` starting the next one belongs to the same line end. */
  private pendingCr = false;

  /** Parses one body chunk; returns the events it completed, in order. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text: string;
    try {
      text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new SseStreamError('bytes that are not UTF-8', 'encoding');
    }
    let start = this.pendingCr && text.startsWith('\n') ? 1 : 0;
    this.pendingCr = false;
    let events: SseEvent[] = NONE;
    // The next CR and LF at or after `start`, each searched again only once passed: one pass over the chunk.
    let cr = text.indexOf('\r', start);
    let lf = text.indexOf('\n', start);
    while (cr !== -1 || lf !== -1) {
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      let line = text.slice(start, end);
      if (this.partialLength > 0) {
        this.partial.push(line);
        line = this.partial.join('');
        this.partial = [];
        this.partialLength = 0;
      }
      if (end === cr) {
        if (end + 1 === text.length) this.pendingCr = true;
        start = text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      } else start = end + 1;
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      const event = this.line(line);
      if (event) (events === NONE ? (events = []) : events).push(event);
    }
    if (start < text.length) {
      this.partial.push(start === 0 ? text : text.slice(start));
      this.partialLength += text.length - start;
    }
    if (this.pending + this.partialLength > this.maxEventLength) {
      throw new SseStreamError(`an event longer than ${this.maxEventLength} characters`, 'size');
    }
    return events;
  }

  /** The end of the body: an event without its closing blank line is dropped, as the spec says. */
  end(): { incomplete: boolean } {
    const incomplete = this.partial.some((piece) => piece.trim() !== '') || this.data !== undefined;
    this.partial = [];
    this.partialLength = 0;
    this.data = this.more = undefined;
    this.pending = 0;
    return { incomplete };
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.data === undefined) {
        this.event = '';
        return undefined;
      }
      const data = this.more ? [this.data, ...this.more].join('\n') : this.data;
      const event = { event: this.event || 'message', data };
      this.data = this.more = undefined;
      this.pending = 0;
      this.event = '';
      return event;
    }
    if (line.startsWith(':')) return undefined;
    // The field's name compared in place and its value sliced once (one string per line, not three).
    const colon = line.indexOf(':');
    const nameEnd = colon === -1 ? line.length : colon;
    const valueStart = colon === -1 ? line.length : line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1;
    if (nameEnd === 4 && line.startsWith('data')) {
      const data = line.slice(valueStart);
      if (this.data === undefined) this.data = data;
      else (this.more ??= []).push(data);
      this.pending += data.length + 1;
    } else if (nameEnd === 5 && line.startsWith('event')) this.event = line.slice(valueStart);
    return undefined;
  }
}
