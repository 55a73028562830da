import { Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FairShareLimits } from '../../config/env.js';
import { GatewayError } from '../../errors/codes.js';
import { CapRefusals, type Cap, type CapName } from '../capRefusals.js';
import { OperationKey, operationValue, setOperationValue } from '../../context/request.js';
import { controllerAborted } from '../../context/operationController.js';
import type { SharedHoldings } from '../../state/index.js';
import type { AdmittedOperation, ClientIdentity, PipelineRule } from '../operation.js';

/** What one client holds: sockets, open subscriptions (every transport), concurrent chat streams. */
export type ShareKind = 'connection' | 'subscription' | 'chatStream';

/** Keys and subjects are kept as digests: a gateway has a handful of keys (made once each, {@link known}). */
const MAX_KEYS = 1024;

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}

/**
 * The client an operation or connection counts against, everywhere a client is counted (fair shares, the upstream
 * connection pools, budgets): its subject when a trusted authority named one (a router's end client, an
 * authenticated subject), else its API key when GATEWAY_API_KEYS is set (one it cannot invent), else its address.
 * Keys and subjects are kept as digests, in memory only, never logged.
 */
export function clientKey(keyed: boolean, identity: ClientIdentity | undefined): string {
  if (identity?.subject) return known(subjectKeys, identity.subject, 'subject:', true);
  if (keyed && identity?.apiKey) return known(apiKeyKeys, identity.apiKey, 'key:', true);
  return known(addressKeys, identity?.remoteAddress ?? 'unknown', 'address:', false);
}

// One string per client, not one per operation: every operation's context keeps its key (a chat stream waiting in
// line keeps it, and the key its fair share counted, for as long as it waits), and a template literal makes a
// concatenated string (and its flat copy once hashed) per call.
const subjectKeys = new Map<string, string>();
const apiKeyKeys = new Map<string, string>();
const addressKeys = new Map<string, string>();

function known(keys: Map<string, string>, value: string, prefix: string, digested: boolean): string {
  let key = keys.get(value);
  if (key === undefined) {
    key = flatString(prefix + (digested ? digest(value) : value));
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value as string);
    keys.set(value, key);
  }
  return key;
}

/** A flat copy of an ASCII-or-not string (a concatenated one is a tree of parts until V8 flattens it). */
function flatString(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** A share held; `release()` gives it back (once, however often it is called). */
export interface Lease {
  release(): void;
}

const UNCOUNTED = new CapRefusals();

/** What a subscription's lease holds (one list for all: a lease keeps it for the subscription's life). */
const SUBSCRIPTION_SHARES: readonly ShareKind[] = ['subscription'];
const CHAT_STREAM_SHARES: readonly ShareKind[] = ['subscription', 'chatStream'];

/** The subscription fields that hold a chat provider's stream open (CLIENT_MAX_CHAT_STREAMS). */
const CHAT_STREAM_FIELDS = new Set(['chatCompletionStream']);

const CAPS: Record<
  ShareKind,
  {
    client: keyof FairShareLimits;
    clientName: CapName;
    total?: keyof FairShareLimits;
    totalName?: CapName;
    what: string;
  }
> = {
  connection: {
    client: 'clientMaxConnections',
    clientName: 'CLIENT_MAX_CONNECTIONS',
    total: 'maxConnections',
    totalName: 'MAX_CONNECTIONS',
    what: 'connections',
  },
  subscription: {
    client: 'clientMaxSubscriptions',
    clientName: 'CLIENT_MAX_SUBSCRIPTIONS',
    total: 'maxSubscriptions',
    totalName: 'MAX_SUBSCRIPTIONS',
    what: 'open subscriptions',
  },
  chatStream: {
    client: 'clientMaxChatStreams',
    clientName: 'CLIENT_MAX_CHAT_STREAMS',
    what: 'concurrent chat streams',
  },
};

/** A socket's connection shares: everyone's from the moment it connects, its client's from its first request. */
interface SocketShare {
  total?: Lease;
  /** Its client's share, once its first request said who the client is (a client's own socket). */
  client?: Lease;
  refused?: GatewayError;
  /** Its client's share being taken across the replicas: later requests on the socket wait for the verdict. */
  pending?: Promise<GatewayError | undefined>;
  /** Whether its first request has been seen. */
  joined: boolean;
  closed?: boolean;
}

/**
 * How a request's socket counts against a client (CLIENT_MAX_CONNECTIONS), as the transport that knows who sent it
 * decides (transports/clientIdentity.ts):
 * - `socket`: a client's own socket, against that client until it closes;
 * - `request`: an intermediary's socket that carries many clients' requests (a trusted proxy, a router naming its end
 *   client): each request against its own client while it is served;
 * - `none`: a federation router's own connection, which counts in MAX_CONNECTIONS only: a router is infrastructure,
 *   and the clients behind it are counted by their operations.
 */
export type ConnectionShare = 'socket' | 'request' | 'none';

/** What tells that a request is over: its response (HTTP) or its socket (a WebSocket) closing. */
export interface Closes {
  once(event: 'close', listener: () => void): unknown;
}

/** Which counts a lease takes from: the client's, everyone's, or both. */
type Scope = 'both' | 'total' | 'client';

/**
 * Fair share of one gateway between its clients: how many sockets, subscriptions and chat streams one client
 * ({@link clientKey}: the end client a router names, else its API key when GATEWAY_API_KEYS is set, else its
 * address) and everyone together may hold at once. A share past
 * a cap is refused with RATE_LIMITED at once (HTTP 429, WebSocket close 4429, a graphql-ws error message), so one
 * client's excess never queues in front of anyone else's work. Counted across transports; a client's shares also
 * across replicas when `cluster` is given (REDIS_URL): each is then a lease in shared state too, taken after this
 * process's own count allows it (MAX_CONNECTIONS and MAX_SUBSCRIPTIONS stay per process: they bound its sockets and
 * memory).
 */
export class FairShare {
  private readonly held = new Map<string, Record<ShareKind, number>>();
  private readonly totals: Record<ShareKind, number> = { connection: 0, subscription: 0, chatStream: 0 };
  private readonly sockets = new WeakMap<Socket, SocketShare>();

  constructor(
    private readonly limits: FairShareLimits,
    private readonly options: {
      /** GATEWAY_API_KEYS is set: clients are told apart by key ({@link clientKey}). */
      keyed: boolean;
      /** Where refusals are made, counted and logged; a bare one (neither) in unit tests. */
      refusals?: CapRefusals;
      /** The replicas' shared holdings: a client's caps then hold for the cluster. */
      cluster?: SharedHoldings;
    },
  ) {}

  /** The client a connection or operation counts against ({@link clientKey}). */
  clientOf(identity: ClientIdentity): string {
    return clientKey(this.options.keyed, identity);
  }

  /**
   * Takes one of each kind for `client`, all or none: the refusal names the first cap it would pass. With a cluster,
   * the answer comes once the replicas' shared count has been asked.
   */
  acquire(client: string, kinds: readonly ShareKind[]): Lease | GatewayError | Promise<Lease | GatewayError> {
    return this.clustered(client, kinds, this.take(client, kinds, 'both'));
  }

  /** The local share `taken`, then the same kinds across the replicas (each a lease in shared state). */
  private clustered(
    client: string,
    kinds: readonly ShareKind[],
    taken: Lease | GatewayError,
  ): Lease | GatewayError | Promise<Lease | GatewayError> {
    const cluster = this.options.cluster;
    if (!cluster || taken instanceof GatewayError) return taken;
    return (async () => {
      const held: Array<{ release(): void }> = [];
      const giveBack = () => {
        held.forEach((h) => h.release());
        taken.release();
      };
      for (const kind of kinds) {
        const cap = CAPS[kind];
        const share = await cluster.acquire(kind, client, this.limits[cap.client]).catch(() => undefined);
        if (!share) {
          giveBack();
          return this.refusal(kind, cap.clientName, this.limits[cap.client], 'one client across the replicas');
        }
        held.push(share);
      }
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          giveBack();
        },
      };
    })();
  }

  /**
   * The shares an admitted operation holds while it runs: a subscription takes one subscription, a chat stream also
   * one chat stream; queries and mutations take none (undefined).
   */
  admitOperation(
    identity: ClientIdentity,
    document: DocumentNode,
    operation: OperationDefinitionNode,
  ): Lease | GatewayError | Promise<Lease | GatewayError> | undefined {
    if (operation.operation !== 'subscription') return undefined;
    const chat = rootFieldNames(document, operation.selectionSet).some((name) => CHAT_STREAM_FIELDS.has(name));
    return this.acquire(this.clientOf(identity), chat ? CHAT_STREAM_SHARES : SUBSCRIPTION_SHARES);
  }

  /** How many of each kind `client` holds now. */
  heldBy(client: string): Record<ShareKind, number> {
    return { ...(this.held.get(client) ?? { connection: 0, subscription: 0, chatStream: 0 }) };
  }

  /**
   * Counts every socket of `server` (MAX_CONNECTIONS) as it connects; it counts against its client
   * (CLIENT_MAX_CONNECTIONS) only from its first request, whose headers say who the client is
   * ({@link connectionRefusal}): a half-open socket counts against no one's cap, and the HTTP server's header timeout
   * drops it. A socket past a cap is not cut at once: its first request is answered with the refusal (HTTP 429, a
   * WebSocket closed with 4429).
   */
  guard(server: Server): void {
    server.on('connection', (socket: Socket) => {
      const state: SocketShare = { joined: false };
      this.sockets.set(socket, state);
      const taken = this.take('', ['connection'], 'total');
      if (taken instanceof GatewayError) state.refused = taken;
      else state.total = taken;
      socket.once('close', () => {
        state.closed = true;
        state.total?.release();
        state.client?.release();
      });
    });
  }

  /**
   * RATE_LIMITED when the request's socket is past a connection cap (see {@link guard}); undefined lets it in. How
   * the socket counts against `client` is `share` ({@link ConnectionShare}); a request counted on its own holds its
   * share until `done` closes (its response; a WebSocket's socket).
   */
  connectionRefusal(
    req: IncomingMessage,
    client: ClientIdentity,
    share: ConnectionShare,
    done: Closes,
  ): GatewayError | undefined | Promise<GatewayError | undefined> {
    const state = this.sockets.get(req.socket);
    if (!state || state.refused) return state?.refused;
    if (share === 'none') return undefined;
    const key = this.clientOf(client);
    if (share === 'request') {
      const taken = this.clustered(key, ['connection'], this.take(key, ['connection'], 'client'));
      const settle = (lease: Lease | GatewayError) => {
        if (lease instanceof GatewayError) return lease;
        done.once('close', () => lease.release());
        return undefined;
      };
      return taken instanceof Promise ? taken.then(settle) : settle(taken);
    }
    if (state.joined) return state.pending ?? undefined;
    state.joined = true;
    const taken = this.clustered(key, ['connection'], this.take(key, ['connection'], 'client'));
    const settle = (lease: Lease | GatewayError) => {
      state.pending = undefined;
      if (lease instanceof GatewayError) state.refused = lease;
      // The socket may have closed while the replicas were asked: its share goes back at once.
      else if (state.closed) lease.release();
      else state.client = lease;
      return state.refused;
    };
    if (!(taken instanceof Promise)) return settle(taken);
    return (state.pending = taken.then(settle));
  }

  /**
   * A WebSocket whose `connection_init` showed it to be a federation router's (its key came in `connectionParams`,
   * after the upgrade counted the socket against its address): it gives its client's share back.
   */
  routerConnection(socket: Socket): void {
    const state = this.sockets.get(socket);
    state?.client?.release();
    if (state) state.client = undefined;
  }

  private take(client: string, kinds: readonly ShareKind[], scope: Scope): Lease | GatewayError {
    const held = this.held.get(client) ?? { connection: 0, subscription: 0, chatStream: 0 };
    for (const kind of kinds) {
      const cap = CAPS[kind];
      if (scope !== 'client' && cap.total && this.totals[kind] >= this.limits[cap.total])
        return this.refusal(kind, cap.totalName!, this.limits[cap.total], 'the gateway');
      if (scope !== 'total' && held[kind] >= this.limits[cap.client])
        return this.refusal(kind, cap.clientName, this.limits[cap.client], 'one client');
    }
    for (const kind of kinds) {
      if (scope !== 'client') this.totals[kind]++;
      if (scope !== 'total') held[kind]++;
    }
    if (scope !== 'total') this.held.set(client, held);
    return new LocalLease(this, client, held, kinds, scope);
  }

  /** Gives back what `take` counted (LocalLease, once). */
  giveBack(client: string, held: Record<ShareKind, number>, kinds: readonly ShareKind[], scope: Scope): void {
    for (const kind of kinds) {
      if (scope !== 'client') this.totals[kind]--;
      if (scope !== 'total') held[kind]--;
    }
    if (scope !== 'total' && held.connection + held.subscription + held.chatStream === 0) this.held.delete(client);
  }

  /** A refusal by `cap`, made, counted and logged as this one's own are. */
  refuseCap(cap: Cap): GatewayError {
    return (this.options.refusals ?? UNCOUNTED).refuse(cap);
  }

  private refusal(kind: ShareKind, limit: CapName, max: number, holder: string): GatewayError {
    return (this.options.refusals ?? UNCOUNTED).refuse({ limit, max, what: CAPS[kind].what, holder });
  }
}

/**
 * This process's share, as {@link FairShare.take} counted it: an object, not a closure and its context, since every
 * subscription holds one for its whole life (ten thousand on a live-health dashboard fleet).
 */
class LocalLease implements Lease {
  private released = false;

  constructor(
    private readonly share: FairShare,
    private readonly client: string,
    private readonly held: Record<ShareKind, number>,
    private readonly kinds: readonly ShareKind[],
    private readonly scope: Scope,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    this.share.giveBack(this.client, this.held, this.kinds, this.scope);
  }
}

/** The field names an operation selects at its root, through inline fragments and fragment spreads. */
function rootFieldNames(document: DocumentNode, selectionSet: SelectionSetNode, seen = new Set<string>()): string[] {
  const names: string[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) names.push(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      names.push(...rootFieldNames(document, selection.selectionSet, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find(
        (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION)
        names.push(...rootFieldNames(document, fragment.selectionSet, seen));
    }
  }
  return names;
}

/**
 * Fair share as a pipeline rule: an admitted subscription takes its client's subscription (and chat stream) share
 * until it finishes; past a cap it is refused with RATE_LIMITED (HTTP 429) before anything runs. The client is the
 * identity its transport passed in the operation's init.
 */
export function useFairShare({ fairShare }: { fairShare: FairShare }): PipelineRule {
  return {
    name: 'fairShare',
    admit(op) {
      const share = fairShare.admitOperation(op.client, op.document, op.operation);
      // A closure only for a share the replicas are asked for: a query takes none and is settled at once.
      return share instanceof Promise ? share.then((taken) => settleShare(op, taken)) : settleShare(op, share);
    },
    finish(op) {
      operationValue(op.context, LEASE)?.release();
    },
  };
}

/** The share an operation took, kept until it finishes; a refusal answered 429. */
function settleShare(op: AdmittedOperation, taken: Lease | GatewayError | undefined): GatewayError | undefined {
  if (taken instanceof GatewayError) {
    taken.extensions.http = { status: 429 };
    return taken;
  }
  // The client left while the replicas were asked: the share goes back at once.
  if (taken && controllerAborted(op.controller)) taken.release();
  else if (taken) setOperationValue(op.context, LEASE, taken);
  return undefined;
}

/** The shares an admitted operation holds until it finishes. */
const LEASE = new OperationKey<Lease>('fair-share lease');
