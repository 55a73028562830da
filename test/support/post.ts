import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/**
 * The headers Node's `fetch` sends with every request: the gateway reads `accept` (its response's content type), so a
 * request from {@link post} is one it cannot tell from fetch's.
 */
const FETCH_HEADERS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/** Keep-alive, as fetch's pool: idle sockets are unref'd (no file waits on them) and each server's close ends them. */
const agent = new Agent({ keepAlive: true });

export interface PostResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * POSTs `body` to `url` over node:http and resolves with the status, the headers and the body's text: for the loops that
 * send operations by the thousand (the soak, the fuzz, `TestGateway.query`). Node 20's `fetch` costs about 0.5 ms more
 * CPU per request than this (its web streams, AbortSignals and transferables; measured with a trivial local server:
 * 680–1,030 µs per request against 180–310 µs), which in the soak was a fifth of the file's CPU. A client that must
 * stream, abort or look like a browser still uses fetch.
 */
export function post(url: string, body: string, headers: Record<string, string> = {}): Promise<PostResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...FETCH_HEADERS, ...lowerCased(headers), 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              text: decoded(res.headers, chunks).toString('utf8'),
            });
          } catch (error) {
            reject(error as Error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A WHATWG `Headers` of a {@link post} response, for callers written against fetch's. */
export function headersOf(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
  }
  return out;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** What fetch would have decoded (it asks for gzip and deflate); the gateway compresses only GraphiQL's assets. */
function decoded(headers: IncomingHttpHeaders, chunks: Buffer[]): Buffer {
  const raw = Buffer.concat(chunks);
  switch (headers['content-encoding']) {
    case undefined:
    case 'identity':
      return raw;
    case 'gzip':
      return gunzipSync(raw);
    case 'deflate':
      return inflateSync(raw);
    case 'br':
      return brotliDecompressSync(raw);
    default:
      throw new Error(`post: a response in ${headers['content-encoding']}, which fetch would not have decoded either`);
  }
}
