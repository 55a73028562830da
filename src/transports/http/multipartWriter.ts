import type { ServerResponse } from 'node:http';
import type { OutboundBuffer } from '../outboundBuffer.js';

/**
 * Writes a `multipart/mixed` response of JSON parts, each followed at once by the delimiter after it (`\r\n--b`),
 * as Apollo Router does: a client knows a part has ended only when it sees the next delimiter, so a part whose
 * delimiter waited for the next part would reach it only with that part. The bytes are the usual framing
 * (`\r\n--b\r\ncontent-type: application/json; charset=utf-8\r\n\r\n{…}` per part, `\r\n--b--\r\n` at the end).
 */
export class MultipartWriter {
  private opened = false;
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly boundary: string,
    /** The response's unsent bytes: the stream's sources are paced by it, and a client too slow is cut. */
    private readonly outbound: OutboundBuffer,
  ) {}

  /**
   * Writes one part at once, never queued here: what the client has not read is counted by the outbound buffer, which
   * pauses the operation's source ({@link pacedBy}) and cuts a client that is too slow; nothing is written after that.
   */
  write(body: unknown): void {
    if (this.ended || this.res.destroyed || this.outbound.overflowed()) return;
    const opening = this.opened ? '' : `\r\n--${this.boundary}`;
    this.opened = true;
    this.res.write(
      `${opening}\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(body)}\r\n--${this.boundary}`,
    );
  }

  /** Ends the response with the closing delimiter (once). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.res.destroyed) this.res.end(this.opened ? '--\r\n' : `\r\n--${this.boundary}--\r\n`);
  }
}
