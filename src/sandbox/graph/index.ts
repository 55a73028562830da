import type { ServerResponse } from 'node:http';
import type { Emulator, EmulatorContext, SandboxRequest } from '../types.js';
import { TokenStore } from './auth.js';
import { runBatch } from './batch.js';
import { badRequest, errorEnvelope, errorResponse, GraphError, GraphErrorCode, statusError } from './errors.js';
import { createLoginEmulator } from './login.js';
import { serve, type GraphRequest } from './resources.js';
import { ScriptedChanges } from './scripted.js';
import { graphHeaders, requestIds, writeGraph, type GraphResponse, type RequestIds } from './response.js';
import { GraphStore } from './store.js';

const VERSION = /^\/(v1\.0|beta)(\/.*)?$/i;

function parseBody(req: SandboxRequest): unknown {
  if (req.body.length === 0 || (req.method !== 'POST' && req.method !== 'PATCH' && req.method !== 'PUT'))
    return undefined;
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    throw badRequest(
      'Unable to read JSON request payload. Please ensure Content-Type header is set and payload is of valid JSON format.',
    );
  }
}

function headersOf(req: SandboxRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Microsoft Graph v1.0 (and beta) service communications, JSON batching included. */
function createGraphEmulator(tokens: TokenStore): Emulator {
  const store = new GraphStore();
  const scripted = new ScriptedChanges(store);

  async function respond(req: SandboxRequest, ctx: EmulatorContext, ids: RequestIds): Promise<GraphResponse> {
    tokens.authenticate(req.headers.authorization, ctx.now());
    const m = VERSION.exec(req.path);
    if (!m) throw badRequest(`Invalid version: ${req.path.split('/')[1] ?? ''}. Use /v1.0 or /beta.`);
    const graphReq: GraphRequest = {
      method: req.method,
      version: m[1].toLowerCase(),
      path: m[2] ?? '/',
      rawQuery: req.rawQuery,
      headers: headersOf(req),
      body: parseBody(req),
    };
    if (graphReq.path === '/$batch' || graphReq.path === '/%24batch') {
      if (req.method !== 'POST')
        throw new GraphError(
          405,
          GraphErrorCode.MethodNotAllowed,
          'Specified HTTP method is not allowed for the request target.',
        );
      return runBatch(graphReq.body, graphReq, ctx, ids, (item) => serve(item, store, ctx), req.signal);
    }
    return serve(graphReq, store, ctx);
  }

  return {
    name: 'graph',
    async handle(req: SandboxRequest, res: ServerResponse, ctx: EmulatorContext) {
      const ids = requestIds(req.headers);
      let r: GraphResponse;
      try {
        r = await respond(req, ctx, ids);
      } catch (err) {
        if (!(err instanceof GraphError)) throw err;
        r = errorResponse(err, ids, ctx.now());
      }
      writeGraph(res, r, ids);
    },
    faultResponse(status, ctx) {
      const ids = requestIds({});
      const err = statusError(status);
      return { body: errorEnvelope(err.code, err.message, ids, ctx.now()), headers: graphHeaders(ids) };
    },
    control: (req) => scripted.control(req),
    reset() {
      scripted.reset();
      store.reset();
    },
  };
}

/** Graph and the identity platform share one token store, so they are created together. */
export function createGraphEmulators(): Emulator[] {
  const tokens = new TokenStore();
  return [createGraphEmulator(tokens), createLoginEmulator(tokens)];
}
