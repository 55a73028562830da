import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createChatEmulators } from './chat/index.js';
import { FaultQueue } from './faults.js';
import { createGraphEmulators } from './graph/index.js';
import { BodyTooLarge, readBody, refuseBodyTooLarge, sendJson, sleep } from './http.js';
import { createOmdbEmulator } from './omdb/index.js';
import { RequestRecord, type RecordedRequest } from './record.js';
import {
  CHAT_ANSWER_LENGTHS,
  DEFAULT_SETTINGS,
  MAX_TOKEN_DELAY_MS,
  UPSTREAM_NAMES,
  type Emulator,
  type EmulatorContext,
  type SandboxSettings,
  type UpstreamName,
} from './types.js';

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Initial emulator settings; see {@link SandboxSettings}. */
  settings?: Partial<SandboxSettings>;
  /** Most requests kept in the record. @default 100000 */
  recordCapacity?: number;
}

export interface Sandbox {
  /** `http://host:port` of the shared server. */
  origin: string;
  /** Base URL per upstream, usable as the matching `*_BASE_URL`. */
  baseUrls: Record<UpstreamName, string>;
  record: RequestRecord;
  faults: FaultQueue;
  settings: SandboxSettings;
  server: Server;
  /** Sets the sandbox clock offset (ms) so quota days and token expiry can be tested. */
  setClockOffset(ms: number): void;
  close(): Promise<void>;
}

/** Path below the origin where each emulator's own URL space begins. */
const BASE_PATHS: Record<UpstreamName, string> = {
  graph: '/graph',
  login: '/login',
  omdb: '/omdb',
  glm: '/glm/api/paas/v4',
  ark: '/ark/api/v3',
  deepseek: '/deepseek/v1',
  moonshot: '/moonshot/v1',
};

/** Starts every emulator on one HTTP server. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const settings: SandboxSettings = {
    ...DEFAULT_SETTINGS,
    ...options.settings,
    chatRpm: { ...DEFAULT_SETTINGS.chatRpm, ...options.settings?.chatRpm },
    chatConcurrency: { ...DEFAULT_SETTINGS.chatConcurrency, ...options.settings?.chatConcurrency },
    fileLimits: { ...DEFAULT_SETTINGS.fileLimits, ...options.settings?.fileLimits },
  };
  const record = new RequestRecord(options.recordCapacity);
  const faults = new FaultQueue();
  let clockOffset = 0;
  const emulators = new Map<UpstreamName, Emulator>();
  for (const e of [...createGraphEmulators(), createOmdbEmulator(), ...createChatEmulators()]) {
    emulators.set(e.name, e);
  }
  const sockets = new Set<Socket>();
  let origin = '';

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent || req.socket.destroyed) res.destroy();
      else if (err instanceof BodyTooLarge) refuseBodyTooLarge(res, err);
      else sendJson(res, 500, { error: { code: 'SandboxInternal', message: String(err) } });
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q === -1 ? url : url.slice(0, q);
    const rawQuery = q === -1 ? '' : url.slice(q + 1);
    if (pathname.startsWith('/_sandbox/')) return control(req, res, pathname);

    const upstream = (Object.keys(BASE_PATHS) as UpstreamName[]).find(
      (name) => pathname === BASE_PATHS[name] || pathname.startsWith(BASE_PATHS[name] + '/'),
    );
    // The chat emulators also answer under their short prefix (e.g. /glm/...) so that a wrong path gets the vendor's 404.
    const chatShort = upstream
      ? undefined
      : (['glm', 'ark', 'deepseek', 'moonshot'] as const).find((n) => pathname.startsWith(`/${n}/`));
    const name = upstream ?? chatShort;
    if (!name) return sendJson(res, 404, { error: 'no sandbox upstream at this path', path: pathname });

    const emulator = emulators.get(name)!;
    const base = upstream ? BASE_PATHS[name] : `/${name}`;
    const path = pathname.slice(base.length) || '/';
    const method = req.method ?? 'GET';
    // A file upload is read by its emulator as it arrives, never held whole.
    const streamed = emulator.streamsBody?.(method, path) === true;
    const body = streamed ? Buffer.alloc(0) : await readBody(req);
    const entry: RecordedRequest = record.add({
      upstream: name,
      method,
      url,
      headers: req.headers,
      body: body.toString('utf8'),
      at: new Date().toISOString(),
      aborted: false,
      status: null,
    });
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) {
        entry.aborted = true;
        controller.abort();
      }
    });
    res.on('finish', () => {
      entry.status = res.statusCode;
    });

    const ctx: EmulatorContext = {
      baseUrl: `http://${req.headers.host ?? origin.slice(7)}${base}`,
      settings,
      now: () => Date.now() + clockOffset,
      takeFault: (subUrl) => faults.take(name, subUrl),
    };
    const fault = faults.take(name, url, streamed ? undefined : entry.body);
    // A body the emulator would have streamed is read and dropped when a fault answers instead.
    if (streamed && (fault?.status || fault?.reset)) req.resume();
    if (fault?.delayMs) await sleep(fault.delayMs, controller.signal);
    if (controller.signal.aborted) return;
    if (fault?.reset) {
      req.socket.resetAndDestroy();
      return;
    }
    if (fault?.status) {
      const { body: errBody, headers } =
        fault.body !== undefined ? { body: fault.body, headers: {} } : emulator.faultResponse(fault.status, ctx);
      const extra: Record<string, string> = { ...headers };
      if (fault.retryAfter !== undefined) extra['retry-after'] = String(fault.retryAfter);
      return sendJson(res, fault.status, errBody, extra);
    }
    if (fault?.cutAfterChunks !== undefined) ctx.cutAfterChunks = fault.cutAfterChunks;

    await emulator.handle(
      {
        method,
        path,
        rawQuery,
        query: new URLSearchParams(rawQuery),
        headers: req.headers,
        body,
        ...(streamed ? { stream: req } : {}),
        recordBody: (summary) => {
          entry.body = summary;
        },
        signal: controller.signal,
      },
      res,
      ctx,
    );
  }

  async function control(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const body = await readBody(req);
    let json: unknown = undefined;
    if (body.length) {
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        return sendJson(res, 400, { error: 'body is not valid JSON' });
      }
    }
    const route = `${req.method} ${pathname}`;
    switch (route) {
      case 'GET /_sandbox/requests':
        return sendJson(res, 200, record.list());
      case 'DELETE /_sandbox/requests':
        record.clear();
        return sendJson(res, 200, { ok: true });
      case 'GET /_sandbox/faults':
        return sendJson(res, 200, faults.pending());
      case 'POST /_sandbox/faults': {
        const list = Array.isArray(json) ? json : [json];
        const parsed = list.map((f) => FaultQueue.parse(f));
        const bad = parsed.find((p) => typeof p === 'string');
        if (bad) return sendJson(res, 400, { error: bad });
        for (const f of parsed) faults.push(f as Exclude<typeof f, string>);
        return sendJson(res, 200, { ok: true, queued: parsed.length });
      }
      case 'DELETE /_sandbox/faults':
        faults.clear();
        return sendJson(res, 200, { ok: true });
      case 'GET /_sandbox/config':
        return sendJson(res, 200, settings);
      case 'POST /_sandbox/config': {
        const patch = (json ?? {}) as Partial<SandboxSettings>;
        for (const key of Object.keys(patch) as (keyof SandboxSettings)[]) {
          if (!(key in settings))
            return sendJson(res, 400, {
              error: `unknown setting ${JSON.stringify(key)}; known: ${Object.keys(settings).join(', ')}`,
            });
        }
        const delay = tokenDelayProblem(patch.chatTokenDelayMs);
        if (delay) return sendJson(res, 400, { error: `chatTokenDelayMs ${delay}` });
        if (patch.chatAnswerLength !== undefined && !CHAT_ANSWER_LENGTHS.includes(patch.chatAnswerLength)) {
          return sendJson(res, 400, {
            error: `chatAnswerLength must be ${CHAT_ANSWER_LENGTHS.join(' or ')}, got ${JSON.stringify(patch.chatAnswerLength)}`,
          });
        }
        if (patch.chatRpm) patch.chatRpm = { ...settings.chatRpm, ...patch.chatRpm };
        if (patch.chatConcurrency) patch.chatConcurrency = { ...settings.chatConcurrency, ...patch.chatConcurrency };
        if (patch.fileLimits) patch.fileLimits = { ...settings.fileLimits, ...patch.fileLimits };
        Object.assign(settings, patch);
        return sendJson(res, 200, settings);
      }
      case 'POST /_sandbox/reset':
        record.clear();
        faults.clear();
        clockOffset = 0;
        for (const e of emulators.values()) e.reset();
        Object.assign(settings, { ...DEFAULT_SETTINGS, ...options.settings });
        settings.fileLimits = { ...DEFAULT_SETTINGS.fileLimits, ...options.settings?.fileLimits };
        return sendJson(res, 200, { ok: true });
      case 'POST /_sandbox/clock': {
        const offset = (json as { offsetMs?: unknown } | undefined)?.offsetMs;
        if (typeof offset !== 'number')
          return sendJson(res, 400, { error: 'offsetMs must be a number of milliseconds' });
        clockOffset = offset;
        return sendJson(res, 200, { offsetMs: clockOffset });
      }
      default: {
        // `/_sandbox/<upstream>/...`: the emulator's own control routes (e.g. Graph's scripted incidents).
        const [, , name, ...rest] = pathname.split('/');
        const own = emulators.get(name as UpstreamName)?.control?.({
          method: req.method ?? 'GET',
          path: `/${rest.join('/')}`,
          body: json,
          now: () => Date.now() + clockOffset,
        });
        if (own) return sendJson(res, own.status, own.body);
        return sendJson(res, 404, { error: `no control route ${route}` });
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  origin = `http://${host}:${addr.port}`;
  const baseUrls = Object.fromEntries(UPSTREAM_NAMES.map((n) => [n, origin + BASE_PATHS[n]])) as Record<
    UpstreamName,
    string
  >;

  return {
    origin,
    baseUrls,
    record,
    faults,
    settings,
    server,
    setClockOffset(ms) {
      clockOffset = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** What is wrong with a pause between chat tokens (`chatTokenDelayMs`, `SANDBOX_TOKEN_DELAY_MS`), if anything. */
export function tokenDelayProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_TOKEN_DELAY_MS) {
    return `must be a whole number of milliseconds 0..${MAX_TOKEN_DELAY_MS}, got ${JSON.stringify(value)}`;
  }
  return undefined;
}
