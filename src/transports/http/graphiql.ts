import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GraphiqlExample } from '../../domains/graphiqlExample.js';

export interface GraphiqlHandlerOptions {
  /**
   * The folder `src/build/graphiql.ts` writes: `index.html` plus the hashed bundle and worker files.
   * @default `<project root>/dist/graphiql`
   */
  distDir?: string;
  /** Read on every request for `/graphiql/examples.json`, so the list can follow the live schema. */
  examples: () => GraphiqlExample[];
}

/** Serves GraphiQL; answers `true` when it took the request, `false` to let the next handler have it. */
export type GraphiqlHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Where `npm run build` puts the bundle; the same from `src/transports/http` (tsx) and `dist/transports/http` (compiled). */
export const defaultGraphiqlDistDir = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'dist',
  'graphiql',
);

const assetPrefix = '/graphiql/';
const examplesPath = `${assetPrefix}examples.json`;

// esbuild's `[name]-[hash]` names: the content can never change under such a name.
const hashedName = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// Everything the page loads is same-origin; the policy makes the browser refuse anything else. Monaco sets inline
// styles, and the embedded fonts and icons are data: URLs.
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

type Encoding = 'br' | 'gzip' | 'identity';

/**
 * A built file and the variants `src/build/graphiql.ts` precompressed next to it, looked at once per mtime: what they
 * are, not their bytes. Each response reads the one representation it sends; kept, a single page view held every file
 * it loaded in all three encodings (≈ 11 MB for the whole bundle) for the life of the process (bench/PROFILE.md,
 * "Thirteenth pass"). Browsers keep the hashed files for a year, so a read per response is rare.
 */
interface Asset {
  mtimeMs: number;
  contentType: string;
  /** Identifies the content; each encoding's ETag adds a suffix to it. */
  contentHash: string;
  /** Each representation's file and its size in bytes. */
  files: Partial<Record<Encoding, { path: string; size: number }>> & { identity: { path: string; size: number } };
}

export function createGraphiqlHandler(options: GraphiqlHandlerOptions): GraphiqlHandler {
  const distDir = resolve(options.distDir ?? defaultGraphiqlDistDir);
  const indexFile = join(distDir, 'index.html');
  const assets = new Map<string, Asset>();

  async function loadAsset(file: string): Promise<Asset | undefined> {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const cached = assets.get(file);
    if (cached && cached.mtimeMs === info.mtimeMs) return cached;
    const variant = async (path: string) => {
      const found = await stat(path).catch(() => undefined);
      return found?.isFile() ? { path, size: found.size } : undefined;
    };
    const [br, gzip] = await Promise.all([variant(`${file}.br`), variant(`${file}.gz`)]);
    const asset: Asset = {
      mtimeMs: info.mtimeMs,
      contentType: contentTypes[extname(file)] ?? 'application/octet-stream',
      contentHash: createHash('sha256')
        .update(await readFile(file))
        .digest('base64url')
        .slice(0, 27),
      files: { identity: { path: file, size: info.size }, br, gzip },
    };
    assets.set(file, asset);
    return asset;
  }

  async function serveFile(req: IncomingMessage, res: ServerResponse, file: string, immutable: boolean): Promise<void> {
    if (!(await loadAsset(indexFile))) return notBuilt(res);
    const asset = await loadAsset(file);
    if (!asset) return notFound(res);
    const encoding = chooseEncoding(req.headers['accept-encoding'], asset);
    // One ETag per representation: the gzip and brotli bytes differ from the plain file.
    const etag = `"${asset.contentHash}${encoding === 'identity' ? '' : `-${encoding}`}"`;
    res.setHeader('Content-Type', asset.contentType);
    res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.setHeader('ETag', etag);
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (asset.contentType.startsWith('text/html')) {
      res.setHeader('Content-Security-Policy', contentSecurityPolicy);
      res.setHeader('Referrer-Policy', 'no-referrer');
    }
    if (etagMatches(req.headers['if-none-match'], etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    const chosen = asset.files[encoding] ?? asset.files.identity;
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    if (req.method === 'HEAD') {
      res.setHeader('Content-Length', chosen.size);
      res.statusCode = 200;
      res.end();
      return;
    }
    const body = await readFile(chosen.path);
    res.setHeader('Content-Length', body.length);
    res.statusCode = 200;
    res.end(body);
  }

  function serveExamples(req: IncomingMessage, res: ServerResponse): void {
    const body = Buffer.from(JSON.stringify(options.examples()));
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const pathname = (req.url ?? '/').split('?', 1)[0];

    let work: () => Promise<void> | void;
    if (pathname === '/' || (pathname === '/graphql' && acceptsHtml(req.headers.accept))) {
      work = () => serveFile(req, res, indexFile, false);
    } else if (pathname === examplesPath) {
      work = () => serveExamples(req, res);
    } else if (pathname.startsWith(assetPrefix)) {
      const file = assetFile(distDir, pathname.slice(assetPrefix.length));
      work = file ? () => serveFile(req, res, file, hashedName.test(file)) : () => notFound(res);
    } else {
      return false;
    }

    Promise.resolve()
      .then(work)
      .catch((error: unknown) => {
        if (res.headersSent) return void res.destroy(error instanceof Error ? error : undefined);
        res.statusCode = 500;
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        res.end(`GraphiQL could not be served: ${error instanceof Error ? error.message : String(error)}\n`);
      });
    return true;
  };
}

/**
 * The file a `/graphiql/<name>` URL names, or undefined when the name could escape `distDir` or asks for a
 * precompressed sibling directly (those are only sent through `Content-Encoding`).
 */
function assetFile(distDir: string, encodedName: string): string | undefined {
  let name: string;
  try {
    name = decodeURIComponent(encodedName);
  } catch {
    return undefined;
  }
  if (name === '' || name.includes('\0') || name.includes('\\')) return undefined;
  if (
    name.split('/').some((segment) => segment === '..' || segment === '.' || segment === '' || segment.startsWith('.'))
  ) {
    return undefined;
  }
  if (name.endsWith('.br') || name.endsWith('.gz')) return undefined;
  const file = resolve(distDir, name);
  return file.startsWith(distDir + sep) ? file : undefined;
}

/** Browsers navigating to `/graphql` list `text/html`; GraphQL clients ask for JSON. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept?.toLowerCase().includes('text/html') ?? false;
}

function chooseEncoding(acceptEncoding: string | undefined, asset: Asset): Encoding {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [coding, ...params] = part.trim().split(';');
    if (!coding) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(coding, q ? Number(q.slice(2)) : 1);
  }
  const quality = (coding: string) => accepted.get(coding) ?? accepted.get('*') ?? 0;
  if (asset.files.br && quality('br') > 0) return 'br';
  if (asset.files.gzip && quality('gzip') > 0) return 'gzip';
  return 'identity';
}

function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

function notBuilt(res: ServerResponse): void {
  res.statusCode = 503;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end('GraphiQL is not built yet: run `npm run build`.\n');
}

function notFound(res: ServerResponse): void {
  res.statusCode = 404;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('Not found\n');
}
