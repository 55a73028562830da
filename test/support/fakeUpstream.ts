import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeAnswer = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * A misbehaving upstream on 127.0.0.1: each path prefix (`/graph`, `/omdb`, `/glm`) answers with whatever the test
 * planned, so one gateway can point GRAPH_BASE_URL, OMDB_BASE_URL and GLM_BASE_URL at it.
 */
export interface FakeUpstream {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The answer for requests below `prefix` until replaced. */
  answer(prefix: string, handler: FakeAnswer): void;
  /** Requests received, by path. */
  seen: string[];
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const handlers = new Map<string, FakeAnswer>();
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const prefix = [...handlers.keys()].find((p) => req.url?.startsWith(p));
    req.resume();
    if (!prefix) {
      res.writeHead(404).end();
      return;
    }
    req.on('end', () => void handlers.get(prefix)!(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answer: (prefix, handler) => handlers.set(prefix, handler),
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Writes `chunk` again and again, honouring backpressure, until the client goes away or `maxBytes` were sent;
 * resolves with the bytes handed to the socket.
 */
export async function writeEndlessly(res: ServerResponse, chunk: Buffer, maxBytes: number): Promise<number> {
  let sent = 0;
  while (sent < maxBytes && !res.destroyed) {
    sent += chunk.length;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  if (!res.destroyed) res.end();
  return sent;
}
