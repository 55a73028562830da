import type { ServerResponse } from 'node:http';
import { sleep } from '../http.js';

/** One server-sent event: a `data:` line (JSON or `[DONE]`) or a `:` comment line. */
export type SseEvent = { data: string } | { comment: string };

export interface PacedWrite {
  /** Time between two data events (stream) or per completion token (non-stream). */
  delayMs: number;
  signal: AbortSignal;
  /** From a fault: destroy the socket after this many data events (non-stream: after half the body). */
  cutAfterChunks?: number;
}

let running = 0;
let written = 0;

/** Writers still running; lets tests prove that a client that went away stops the generator. */
export function runningChatWriters(): number {
  return running;
}

/** Data events written by every stream so far; lets tests prove that a stream waits while its reader does. */
export function writtenChatEvents(): number {
  return written;
}

/**
 * Writes the events one per TCP write, `delayMs` apart, and stops at once when the client goes away. While the
 * socket's buffer is full it waits for `drain`, as a real server does: a client that stops reading stalls it.
 */
export async function writeSse(res: ServerResponse, events: Iterable<SseEvent>, o: PacedWrite): Promise<void> {
  running += 1;
  try {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    let sent = 0;
    for (const event of events) {
      if ('comment' in event) {
        if (o.signal.aborted) return;
        res.write(`: ${event.comment}\n\n`);
        continue;
      }
      // Awaiting between events makes each one its own write on the wire, as a real token stream is.
      if (sent > 0) await pause(o.delayMs, o.signal);
      if (o.signal.aborted) return;
      if (o.cutAfterChunks !== undefined && sent >= o.cutAfterChunks) {
        res.socket?.destroy();
        return;
      }
      const room = res.write(`data: ${event.data}\n\n`);
      sent += 1;
      written += 1;
      if (!room) await drained(res, o.signal);
    }
    res.end();
  } finally {
    running -= 1;
  }
}

/**
 * Answers a non-streaming call after the time the tokens would have taken. With `keepAliveLines` (DeepSeek) the
 * headers and one empty line leave at once, then one more empty line every 500 ms while "inference" runs.
 */
export async function writeJsonAfterGeneration(
  res: ServerResponse,
  body: unknown,
  tokens: number,
  o: PacedWrite & { keepAliveLines: boolean },
): Promise<void> {
  running += 1;
  try {
    const text = JSON.stringify(body);
    const headers = { 'content-type': 'application/json; charset=utf-8' };
    if (o.keepAliveLines) {
      res.writeHead(200, headers);
      res.write('\n');
    }
    for (let left = o.delayMs * tokens; left > 0 && !o.signal.aborted;) {
      const step = Math.min(left, 500);
      await sleep(step, o.signal);
      left -= step;
      if (o.keepAliveLines && left > 0 && !o.signal.aborted) res.write('\n');
    }
    if (o.signal.aborted) return;
    if (!res.headersSent) res.writeHead(200, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
    if (o.cutAfterChunks !== undefined) {
      // Destroy once the half has reached the socket, so the client really sees a truncated body.
      res.write(text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
      return;
    }
    res.end(text);
  } finally {
    running -= 1;
  }
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return ms > 0 ? sleep(ms, signal) : new Promise((resolve) => setImmediate(resolve));
}
