import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback upstream for the interceptor tests: answers `status` with `body`, resets the socket at `/reset`, never answers `/hang`. */
export async function loopback(status = 200, body = 'ok'): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/reset') return req.socket.destroy();
    if (req.url === '/hang') return;
    res.writeHead(status);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}
