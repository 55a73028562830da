import { createServer } from 'node:http';
import { request } from 'undici';

/**
 * A subgraph that costs nothing: it answers each request body it has seen with the status, content type and body this
 * gateway answered it with the first time (it forwards a body it has not seen to UPSTREAM_URL once). Hive Gateway in
 * front of it does all of its own work for an operation and fetches a real answer of the same bytes, so its rate is
 * the most Hive Gateway reaches with any subgraph on this machine: the ceiling of scenario 3's "via Hive Gateway" rows.
 * Env: UPSTREAM_URL (this gateway's /graphql), PORT. GET /healthz answers 200.
 */
const upstream = process.env.UPSTREAM_URL;
if (!upstream) throw new Error('replay: UPSTREAM_URL is not set');
const port = Number(process.env.PORT ?? 0);

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** By request body; a benchmark sends a handful of query texts, so the table stays small. */
const answers = new Map<string, Answer | Promise<Answer>>();

async function fetchAnswer(body: string, contentType: string): Promise<Answer> {
  const res = await request(upstream!, { method: 'POST', headers: { 'content-type': contentType }, body });
  return {
    status: res.statusCode,
    contentType: String(res.headers['content-type'] ?? 'application/json'),
    body: Buffer.from(await res.body.arrayBuffer()),
  };
}

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return void res.end('ok');
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString();
    let answer = answers.get(body);
    if (!answer) {
      answer = fetchAnswer(body, req.headers['content-type'] ?? 'application/json');
      answers.set(body, answer);
      // Kept once it settles, so later requests take the synchronous path; a failure is not kept.
      answer.then(
        (a) => answers.set(body, a),
        () => answers.delete(body),
      );
    }
    const send = (a: Answer): void => {
      res.writeHead(a.status, { 'content-type': a.contentType, 'content-length': a.body.length });
      res.end(a.body);
    };
    if (answer instanceof Promise)
      answer.then(send, (error: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`replay: ${String(error)}`);
      });
    else send(answer);
  });
}).listen(port, '127.0.0.1');
