import { createServer, type IncomingMessage } from 'node:http';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

/**
 * The fan-out floor: the least any Node server pays to send one change to many graphql-ws subscribers. It speaks just
 * enough of graphql-ws's protocol (`graphql-transport-ws`: connection_init → connection_ack, subscribe, complete)
 * for the same clients the gateway serves, remembers each socket's subscription ids, and on `POST /broadcast`
 * (`{ "payloads": ["<payload JSON>", …] }`, the `payload` texts the gateway sent for one incident) sends every payload
 * to every subscription as its `next` message: the payload serialised once, only the id differs per message. No
 * GraphQL, no pipeline, no backpressure: the bytes every server must frame and write, nothing else.
 * Env: PORT.
 */
const port = Number(process.env.PORT ?? 4032);

interface Subscriber {
  ws: WebSocket;
  /** `{"id":"…","type":"next","payload":`, made once per subscription. */
  prefix: string;
}

const subscribers = new Map<WebSocket, Map<string, Subscriber>>();

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const server = createServer((req, res) => {
  if (req.url === '/healthz') return void res.end('ok');
  if (req.method === 'GET' && req.url === '/subscriptions') {
    let count = 0;
    for (const byId of subscribers.values()) count += byId.size;
    return void res.end(String(count));
  }
  if (req.method !== 'POST' || req.url !== '/broadcast') return void res.writeHead(404).end();
  void body(req).then((text) => {
    const { payloads } = JSON.parse(text) as { payloads: string[] };
    let sent = 0;
    // Change by change, every subscription, as the gateway's feed hands each change to every subscriber.
    for (const payload of payloads) {
      const tail = `${payload}}`;
      for (const byId of subscribers.values()) {
        for (const s of byId.values()) {
          s.ws.send(s.prefix + tail);
          sent++;
        }
      }
    }
    res.end(JSON.stringify({ sent }));
  });
});

const wss = new WebSocketServer({ server, path: '/graphql' });
wss.on('connection', (ws) => {
  const byId = new Map<string, Subscriber>();
  subscribers.set(ws, byId);
  ws.on('message', (data: RawData) => {
    let msg: { type?: string; id?: string };
    try {
      msg = JSON.parse(data.toString()) as typeof msg;
    } catch {
      return ws.close(4400, 'Invalid message');
    }
    if (msg.type === 'connection_init') return ws.send('{"type":"connection_ack"}');
    if (msg.type === 'ping') return ws.send('{"type":"pong"}');
    if (msg.type === 'complete' && msg.id) return void byId.delete(msg.id);
    if (msg.type === 'subscribe' && msg.id)
      byId.set(msg.id, { ws, prefix: `{"id":${JSON.stringify(msg.id)},"type":"next","payload":` });
  });
  ws.on('close', () => subscribers.delete(ws));
});

server.listen(port, '127.0.0.1', () => console.log(`fan-out floor on ws://127.0.0.1:${port}/graphql`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
