/**
 * The OMDb API emulator: `GET /omdb/?apikey=sandbox&...` answers as www.omdbapi.com does (docs/upstreams.md section 2).
 * Parameters are resolved in `query.ts`, rendered in `render.ts`; this file owns the key, the daily quota and the
 * HTTP envelope (JSON, `r=xml`, `callback=` JSONP).
 */
import type { ServerResponse } from 'node:http';
import type { Emulator } from '../types.js';
import { Catalog } from './catalog.js';
import { DailyQuota } from './quota.js';
import { answer, OmdbError, type Answer } from './query.js';
import { toJson, toXml } from './render.js';
import { seedTitles } from './seed.js';

/** The one key the sandbox accepts (docs/getting-started.md: the sandbox's credentials). */
export const SANDBOX_API_KEY = 'sandbox';

/** JSONP names we echo into JavaScript: dotted identifiers only, so a callback cannot inject code. */
const CALLBACK_NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

let catalog: Catalog | undefined;
/** The catalog is immutable, so every emulator in the process shares one, built on first use. */
export function omdbCatalog(): Catalog {
  catalog ??= new Catalog(seedTitles());
  return catalog;
}

type Format = { kind: 'json' } | { kind: 'xml' } | { kind: 'jsonp'; callback: string };

/** `r=xml` wins over `callback`; an invalid callback name is ignored and plain JSON is sent. */
function formatOf(query: URLSearchParams): Format {
  if (query.get('r')?.trim().toLowerCase() === 'xml') return { kind: 'xml' };
  const callback = query.get('callback')?.trim();
  return callback && CALLBACK_NAME.test(callback) ? { kind: 'jsonp', callback } : { kind: 'json' };
}

function send(res: ServerResponse, status: number, a: Answer, format: Format): void {
  let text: string;
  let type: string;
  if (format.kind === 'xml') {
    text = toXml(a);
    type = 'text/xml; charset=utf-8';
  } else if (format.kind === 'jsonp') {
    text = `${format.callback}(${JSON.stringify(toJson(a))})`;
    type = 'text/javascript; charset=utf-8';
  } else {
    text = JSON.stringify(toJson(a));
    type = 'application/json; charset=utf-8';
  }
  // Browser apps call OMDb directly, so the real service allows any origin.
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(text),
    'access-control-allow-origin': '*',
  });
  res.end(text);
}

export function createOmdbEmulator(): Emulator {
  const titles = omdbCatalog();
  const quota = new DailyQuota();
  return {
    name: 'omdb',
    handle(req, res, ctx) {
      // The API lives at the site root only; other paths get the web server's 404 page, as on omdbapi.com.
      if (req.path !== '/') {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<h1>404 - File or directory not found.</h1>');
        return;
      }
      const format = formatOf(req.query);
      const key = req.query.get('apikey')?.trim();
      if (!key) return send(res, 401, { kind: 'error', error: OmdbError.NoApiKey }, format);
      if (key !== SANDBOX_API_KEY) return send(res, 401, { kind: 'error', error: OmdbError.InvalidApiKey }, format);
      // Like the real service, every request with a valid key counts, whatever its answer (not found included).
      // Faults injected by the sandbox core are answered before this point and do not count.
      if (!quota.take(key, ctx.now(), ctx.settings.omdbDailyQuota)) {
        return send(res, 401, { kind: 'error', error: OmdbError.LimitReached }, format);
      }
      send(res, 200, answer(titles, req.query), format);
    },
    // Injected 401/403/429 look like the real key and limit errors, so clients classify them as they would live.
    faultResponse(status) {
      const error =
        status === 401
          ? OmdbError.InvalidApiKey
          : status === 403 || status === 429
            ? OmdbError.LimitReached
            : OmdbError.SomethingWentWrong;
      return { body: { Response: 'False', Error: error } };
    },
    reset() {
      quota.clear();
    },
  };
}
