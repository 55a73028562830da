import { connect, type Socket } from 'node:net';

/**
 * One HTTP/1.1 request over a bare socket, for clients `fetch` cannot play: one that stops reading once the response
 * headers arrived (`pause()`), one that sends its headers byte by byte.
 */
export interface RawHttpClient {
  socket: Socket;
  /** Everything received so far (while reading). */
  received(): string;
  /** Resolves with the status line's code once the response headers arrived. */
  status: Promise<number>;
  /** Resolves once the connection is gone (read it again with `resume()` to notice a close while paused). */
  closed: Promise<void>;
  pause(): void;
  resume(): void;
}

/** Opens a socket to `url`'s host and sends `head` (the request line and headers, no blank line) and `body`, if given. */
export function rawHttp(
  url: string,
  request?: { method: string; path?: string; headers: Record<string, string>; body?: string },
): RawHttpClient {
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  const chunks: Buffer[] = [];
  let onStatus: (code: number) => void;
  const status = new Promise<number>((resolve) => (onStatus = resolve));
  let headed = false;
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    if (headed) return;
    const text = Buffer.concat(chunks).toString('latin1');
    const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
    if (m && text.includes('\r\n\r\n')) {
      headed = true;
      onStatus(Number(m[1]));
    }
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  if (request) {
    const body = request.body ?? '';
    const headers = {
      host: target.host,
      ...request.headers,
      ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
    };
    const head = `${request.method} ${request.path ?? target.pathname + target.search} HTTP/1.1\r\n${Object.entries(
      headers,
    )
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
    socket.write(head + body);
  }
  return {
    socket,
    received: () => Buffer.concat(chunks).toString('utf8'),
    status,
    closed,
    pause: () => socket.pause(),
    resume: () => socket.resume(),
  };
}
