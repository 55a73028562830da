import type { Server } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { chatUpstreamBody } from '../operations.js';

/**
 * The streaming floor: the least any Node relay pays for the streaming scenario's subscription. It speaks just enough
 * of graphql-ws's protocol (`graphql-transport-ws`: connection_init → connection_ack, subscribe → next… → complete,
 * complete from the client) for the real graphql-ws client, opens the very upstream stream the gateway opens
 * (`chatUpstreamBody` with the subscription's `maxTokens`) through undici, splits the SSE body into events, parses
 * each, and sends each chunk as the `next` message the gateway sends for `chatSubscription`. No GraphQL, no
 * validation, no limits, no fallbacks, no usage ledger: only the bytes every relay must read, parse and write.
 */
export function attachStreamRelay(server: Server, sandboxOrigin: string): void {
  const url = `${sandboxOrigin}/glm/api/paas/v4/chat/completions`;
  const dispatcher = new Agent({ connections: 256, keepAliveTimeout: 30_000 });
  const wss = new WebSocketServer({ server, path: '/graphql' });
  wss.on('connection', (ws) => {
    const open = new Map<string, AbortController>();
    ws.on('message', (data: RawData) => {
      let msg: { type?: string; id?: string; payload?: { variables?: { input?: { maxTokens?: number } } } };
      try {
        msg = JSON.parse(data.toString()) as typeof msg;
      } catch {
        return ws.close(4400, 'Invalid message');
      }
      if (msg.type === 'connection_init') return ws.send('{"type":"connection_ack"}');
      if (msg.type === 'ping') return ws.send('{"type":"pong"}');
      if (msg.type === 'complete' && msg.id) return open.get(msg.id)?.abort();
      if (msg.type !== 'subscribe' || !msg.id) return;
      const id = msg.id;
      const controller = new AbortController();
      open.set(id, controller);
      relay(ws, id, url, dispatcher, msg.payload?.variables?.input?.maxTokens ?? 100, controller.signal)
        .catch((error: unknown) => {
          if (!controller.signal.aborted)
            ws.send(JSON.stringify({ id, type: 'error', payload: [{ message: String(error) }] }));
        })
        .finally(() => open.delete(id));
    });
    ws.on('close', () => {
      for (const controller of open.values()) controller.abort();
    });
  });
}

interface WireChunk {
  id: string;
  choices: { index: number; delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { completion_tokens: number } | null;
}

async function relay(
  ws: WebSocket,
  id: string,
  url: string,
  dispatcher: Dispatcher,
  maxTokens: number,
  signal: AbortSignal,
): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(chatUpstreamBody(maxTokens)),
    dispatcher,
    signal,
  });
  if (res.statusCode !== 200) throw new Error(`upstream ${res.statusCode}: ${await res.body.text()}`);
  let buffer = '';
  res.body.setEncoding('utf8');
  for await (const text of res.body as AsyncIterable<string>) {
    buffer += text;
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const wire = JSON.parse(event.slice(6)) as WireChunk;
      for (const choice of wire.choices) {
        const chunk = {
          id: wire.id,
          index: choice.index,
          delta: { content: choice.delta?.content ?? null },
          finishReason: choice.finish_reason ?? null,
          usage: wire.usage ? { completionTokens: wire.usage.completion_tokens } : null,
        };
        ws.send(JSON.stringify({ id, type: 'next', payload: { data: { chatCompletionStream: chunk } } }));
      }
      // A usage-only chunk (no choices) closes the stream with its counts, as the gateway's last chunk does.
      if (wire.choices.length === 0 && wire.usage) {
        const chunk = {
          id: wire.id,
          index: 0,
          delta: { content: null },
          finishReason: 'stop',
          usage: { completionTokens: wire.usage.completion_tokens },
        };
        ws.send(JSON.stringify({ id, type: 'next', payload: { data: { chatCompletionStream: chunk } } }));
      }
    }
  }
  ws.send(JSON.stringify({ id, type: 'complete' }));
}
