import { randomFillSync } from 'node:crypto';
import type { Logger } from 'pino';
import type { Caller } from '../observability/caller.js';
import type { CancelSource } from '../upstreams/http/cancellation.js';
import { UpstreamTally } from '../upstreams/http/tally.js';
import { OperationController } from './operationController.js';
import type { GatewayServices } from './services.js';

export type { Caller, ClientIdentity } from '../observability/caller.js';

/**
 * One kind of per-operation state (a DataLoader, the budget's estimate, the quota decision, a fair-share lease),
 * named by the module that makes it. Its value lives in the operation's context and dies with it; the key carries
 * the value's type, so no reader casts.
 */
export class OperationKey<T> {
  declare private readonly valueType?: T;
  /** Keys made so far: each is a module's constant, made once when the module loads. */
  private static made = 0;
  /** Its place in every operation's {@link GatewayContext.perOperation}. */
  readonly slot = OperationKey.made++;
  constructor(readonly description: string) {}

  /** As many slots as there are keys (a key made later still finds its slot: the array grows). */
  static slots(): unknown[] {
    return new Array(OperationKey.made);
  }
}

/**
 * Per-operation state: it is created for one operation (an HTTP request, a WebSocket subscription, an in-process
 * call) and dies with it, so loaders and caller credentials can never leak between two callers. What the operation's
 * rules and resolvers hand each other lives here, under an {@link OperationKey}, and nowhere else.
 */
export interface GatewayContext {
  requestId: string;
  /** Fires when the client goes away (HTTP connection closed, subscription completed, socket closed). */
  signal: AbortSignal;
  /**
   * The same cancellation for an upstream wait to follow: the operation's controller when it has one, which makes
   * the AbortSignal above only when something reads it (context/operationController.ts), else that signal.
   */
  readonly aborts: CancelSource;
  /** Who runs it (never shared between requests): operations it starts itself (graph tools) run as the same caller. */
  caller: Caller;
  /**
   * The caller for fair shares, budgets and ownership, as one key (`clientKey` in pipeline/rules/fairShare.ts): its
   * subject, its API key when GATEWAY_API_KEYS is set, else its address; empty when unknown.
   */
  client: string;
  log: Logger;
  services: GatewayServices;
  /**
   * The upstream requests sent for this operation: the upstream clients count each as they send it (an upstream
   * caller's `upstreamRequests`), demand control reports and charges them.
   */
  readonly upstreamRequests: UpstreamTally;
  /**
   * This operation's state, one slot per {@link OperationKey}: read and written through {@link perOperation},
   * {@link operationValue}, {@link setOperationValue}. Slots, not a Map: a Map per operation grew its table as the
   * rules and loaders added their values (bench/PROFILE.md, tenth pass). Apollo's copy of a context shares them.
   */
  readonly perOperation: unknown[];
}

/** The operation's value for `key`, made by `create` the first time it is asked for (a DataLoader, a session). */
export function perOperation<T>(ctx: GatewayContext, key: OperationKey<T>, create: (ctx: GatewayContext) => T): T {
  let value = ctx.perOperation[key.slot] as T | undefined;
  if (value === undefined) {
    value = create(ctx);
    ctx.perOperation[key.slot] = value;
  }
  return value;
}

/** The operation's value for `key`, if one was set. */
export function operationValue<T>(ctx: GatewayContext, key: OperationKey<T>): T | undefined {
  return ctx.perOperation[key.slot] as T | undefined;
}

export function setOperationValue<T>(ctx: GatewayContext, key: OperationKey<T>, value: T): void {
  ctx.perOperation[key.slot] = value;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller-supplied `x-request-id` when it is safe to log, else makes a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && REQUEST_ID.test(value) ? value : newRequestId();
}

/** Random bytes for 128 ids at a time, as Node's `randomUUID` takes them (its secure heap aside). */
const ID_BYTES = Buffer.alloc(16 * 128);
let idsLeft = 0;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** The id's text as it is written, its dashes in place; read out as one string per id. */
const ID_TEXT = Buffer.alloc(36, '-');

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` makes it, as one flat string: `randomUUID` returns a tree of
 * 14 concatenated strings (≈ 550 B per request on Node 24), which every header it is written to, log line and map
 * key then flattens again (bench/PROFILE.md, eighteenth pass). Unguessable as `randomUUID`'s: the same CSPRNG.
 */
export function newRequestId(): string {
  if (idsLeft === 0) {
    randomFillSync(ID_BYTES);
    idsLeft = 128;
  }
  let at = --idsLeft * 16;
  let p = 0;
  for (let i = 0; i < 16; i++, at++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) p++;
    let byte = ID_BYTES[at];
    // RFC 9562: the version (4) and the variant (10).
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    ID_TEXT[p++] = HEX[byte >> 4];
    ID_TEXT[p++] = HEX[byte & 0x0f];
  }
  return ID_TEXT.toString('latin1');
}

export function createContext(
  services: GatewayServices,
  init: { requestId: string; signal: AbortSignal | OperationController; caller?: Caller; client?: string },
): GatewayContext {
  return new RequestContext(
    services,
    init.requestId,
    init.signal,
    init.caller ?? { requestId: init.requestId, transport: 'in-process' },
    init.client ?? '',
  );
}

/**
 * The per-request context as a class, so that what is made on first use stays on first use: Apollo Server copies the
 * context of every operation with `Object.assign` (its `cloneObject`), which calls an own getter but leaves the
 * prototype's alone. An object literal with `get log()` made a pino child for every request that way.
 */
class RequestContext implements GatewayContext {
  readonly perOperation = OperationKey.slots();
  readonly upstreamRequests = new UpstreamTally();
  /** Set by the first read of {@link log}. */
  private logger: Logger | undefined = undefined;
  /** The operation ended with nobody listening and its controller not aborted yet ({@link finishedUnaborted}). */
  unaborted: { controller: AbortController; reason: unknown } | undefined = undefined;

  constructor(
    readonly services: GatewayServices,
    readonly requestId: string,
    private readonly source: AbortSignal | OperationController,
    readonly caller: Caller,
    readonly client: string,
  ) {}

  /** Aborted for whoever reads it after an end that did not abort it ({@link finishedUnaborted}). */
  get signal(): AbortSignal {
    const unaborted = this.unaborted;
    if (unaborted) {
      this.unaborted = undefined;
      unaborted.controller.abort(unaborted.reason);
    }
    const source = this.source;
    // The operation's controller makes its signal now (aborted already if the operation ended).
    return source instanceof OperationController ? source.signal : source;
  }

  get aborts(): CancelSource {
    return this.source instanceof OperationController ? this.source : this.signal;
  }

  // Made on first use: most operations log nothing at the default level, and a pino child per request shows up in
  // the gateway's CPU per operation.
  get log(): Logger {
    return (this.logger ??= this.services.log.child({ requestId: this.requestId }));
  }
}

/**
 * An operation ended whose signal nobody listens to: its controller is aborted only if something reads the
 * context's signal afterwards (pipeline/rules/cancellation.ts), not by an event dispatched to no one.
 */
export function finishedUnaborted(ctx: GatewayContext, controller: AbortController, reason: unknown): void {
  if (ctx instanceof RequestContext && ctx.signal === controller.signal) ctx.unaborted = { controller, reason };
  else controller.abort(reason);
}
