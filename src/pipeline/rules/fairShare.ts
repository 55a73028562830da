import { Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FairShareLimits } from '../../config/env.js';
import { ErrorCode, GatewayError } from '../../errors/codes.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { OperationKey, operationValue, setOperationValue } from '../../context/request.js';
import type { ClientIdentity, PipelineRule } from '../operation.js';


/** What one client holds: sockets, open subscriptions (every transport), concurrent chat streams. */
export type ShareKind = 'connection' | 'subscription' | 'chatStream';

/**
 * The client a request counts against at the upstream connection pools: the subject of its verified token, else its
 * API key when GATEWAY_API_KEYS is set (one it cannot invent), else its address. Kept in memory only, never logged.
 */
export function clientKey(keyed: boolean, identity: ClientIdentity | undefined): string {
  if (identity?.subject !== undefined) return `subject:${identity.subject}`;
  return (keyed && identity?.apiKey) || identity?.remoteAddress || 'unknown';
}

/** A share held; `release()` gives it back (once, however often it is called). */
export interface Lease {
  release(): void;
}

/** The subscription fields that hold a chat provider's stream open (CLIENT_MAX_CHAT_STREAMS). */
const CHAT_STREAM_FIELDS = new Set(['chatCompletionStream']);

const CAPS: Record<ShareKind, { client: keyof FairShareLimits; clientName: string; total?: keyof FairShareLimits; totalName?: string; what: string }> = {
  connection: { client: 'clientMaxConnections', clientName: 'CLIENT_MAX_CONNECTIONS', total: 'maxConnections', totalName: 'MAX_CONNECTIONS', what: 'connections' },
  subscription: { client: 'clientMaxSubscriptions', clientName: 'CLIENT_MAX_SUBSCRIPTIONS', total: 'maxSubscriptions', totalName: 'MAX_SUBSCRIPTIONS', what: 'open subscriptions' },
  chatStream: { client: 'clientMaxChatStreams', clientName: 'CLIENT_MAX_CHAT_STREAMS', what: 'concurrent chat streams' },
};

/** A socket's connection shares: everyone's, then its client's (once known); or why it is refused. */
interface SocketShare {
  leases?: Lease[];
  refused?: GatewayError;
  /** Whether it counts against its client yet (at once by address; by key from its first request). */
  joined: boolean;
}

/** Which counts a lease takes from: the client's, everyone's, or both. */
type Scope = 'both' | 'total' | 'client';

/**
 * Fair share of one gateway between its clients: how many sockets, subscriptions and chat streams one client (its
 * API key when GATEWAY_API_KEYS is set, else its remote address) and everyone together may hold at once. A share past
 * a cap is refused with RATE_LIMITED at once (HTTP 429, WebSocket close 4429, a graphql-ws error message), so one
 * client's excess never queues in front of anyone else's work. Counted across transports, per gateway process.
 */
export class FairShare {
  private readonly held = new Map<string, Record<ShareKind, number>>();
  private readonly totals: Record<ShareKind, number> = { connection: 0, subscription: 0, chatStream: 0 };
  private readonly sockets = new WeakMap<Socket, SocketShare>();

  constructor(
    private readonly limits: FairShareLimits,
    private readonly options: {
      /** GATEWAY_API_KEYS is set: clients are told apart by key. */
      keyed: boolean;
      metrics?: GatewayMetrics;
    },
  ) {}

  /** The client a connection or operation counts against. A key is kept only as a digest. */
  clientOf(identity: ClientIdentity): string {
    if (identity.subject !== undefined) return `subject:${identity.subject}`;
    if (this.options.keyed && identity.apiKey) return `key:${createHash('sha256').update(identity.apiKey).digest('base64url').slice(0, 22)}`;
    return `address:${identity.remoteAddress ?? 'unknown'}`;
  }

  /** Takes one of each kind for `client`, all or none: the refusal names the first cap it would pass. */
  acquire(client: string, kinds: readonly ShareKind[]): Lease | GatewayError {
    return this.take(client, kinds, 'both');
  }

  /**
   * The shares an admitted operation holds while it runs: a subscription takes one subscription, a chat stream also
   * one chat stream; queries and mutations take none (undefined).
   */
  admitOperation(identity: ClientIdentity, document: DocumentNode, operation: OperationDefinitionNode): Lease | GatewayError | undefined {
    if (operation.operation !== 'subscription') return undefined;
    const chat = rootFieldNames(document, operation.selectionSet).some((name) => CHAT_STREAM_FIELDS.has(name));
    return this.acquire(this.clientOf(identity), chat ? ['subscription', 'chatStream'] : ['subscription']);
  }

  /** How many of each kind `client` holds now. */
  heldBy(client: string): Record<ShareKind, number> {
    return { ...(this.held.get(client) ?? { connection: 0, subscription: 0, chatStream: 0 }) };
  }

  /**
   * Counts every socket of `server` (MAX_CONNECTIONS) and, without API keys, every socket of one address
   * (CLIENT_MAX_CONNECTIONS) as it connects; with keys, a socket counts against its key from its first request. A
   * socket past a cap is not cut at once: its first request is answered with {@link connectionRefusal} (HTTP 429, a
   * WebSocket closed with 4429), and the HTTP server's header timeout drops one that sends none.
   */
  guard(server: Server): void {
    server.on('connection', (socket: Socket) => {
      const state: SocketShare = { joined: !this.options.keyed };
      this.sockets.set(socket, state);
      const taken = this.take(this.clientOf({ remoteAddress: socket.remoteAddress }), ['connection'], state.joined ? 'both' : 'total');
      if (taken instanceof GatewayError) state.refused = taken;
      else state.leases = [taken];
      socket.once('close', () => state.leases?.forEach((lease) => lease.release()));
    });
  }

  /** RATE_LIMITED when the request's socket is past a connection cap (see {@link guard}); undefined lets it in. */
  connectionRefusal(req: IncomingMessage, apiKey: string | undefined): GatewayError | undefined {
    const state = this.sockets.get(req.socket);
    if (!state || state.refused || state.joined) return state?.refused;
    // With keys, the socket joins its client at its first request.
    state.joined = true;
    const taken = this.take(this.clientOf({ apiKey, remoteAddress: req.socket.remoteAddress }), ['connection'], 'client');
    if (taken instanceof GatewayError) state.refused = taken;
    else state.leases?.push(taken);
    return state.refused;
  }

  private take(client: string, kinds: readonly ShareKind[], scope: Scope): Lease | GatewayError {
    const held = this.held.get(client) ?? { connection: 0, subscription: 0, chatStream: 0 };
    for (const kind of kinds) {
      const cap = CAPS[kind];
      if (scope !== 'client' && cap.total && this.totals[kind] >= this.limits[cap.total]) return this.refusal(kind, cap.totalName!, this.limits[cap.total], 'the gateway');
      if (scope !== 'total' && held[kind] >= this.limits[cap.client]) return this.refusal(kind, cap.clientName, this.limits[cap.client], 'one client');
    }
    for (const kind of kinds) {
      if (scope !== 'client') this.totals[kind]++;
      if (scope !== 'total') held[kind]++;
    }
    if (scope !== 'total') this.held.set(client, held);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const kind of kinds) {
          if (scope !== 'client') this.totals[kind]--;
          if (scope !== 'total') held[kind]--;
        }
        if (scope !== 'total' && held.connection + held.subscription + held.chatStream === 0) this.held.delete(client);
      },
    };
  }

  private refusal(kind: ShareKind, limit: string, max: number, holder: string): GatewayError {
    this.options.metrics?.fairShareRefusals.inc({ limit });
    return new GatewayError(
      ErrorCode.RateLimited,
      `Too many ${CAPS[kind].what}: ${limit} allows ${max} for ${holder}. Close some before opening more, or raise ${limit}.`,
      { limit, max },
    );
  }
}

/** The field names an operation selects at its root, through inline fragments and fragment spreads. */
function rootFieldNames(document: DocumentNode, selectionSet: SelectionSetNode, seen = new Set<string>()): string[] {
  const names: string[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) names.push(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) names.push(...rootFieldNames(document, selection.selectionSet, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) names.push(...rootFieldNames(document, fragment.selectionSet, seen));
    }
  }
  return names;
}

/**
 * Fair share as a pipeline rule: an admitted subscription takes its client's subscription (and chat stream) share
 * until it finishes; past a cap it is refused with RATE_LIMITED (HTTP 429) before anything runs. The client is the
 * identity its transport passed in the operation's init.
 */
export function fairShareRule(fairShare: FairShare): PipelineRule {
  return {
    name: 'fairShare',
    admit(op) {
      const share = fairShare.admitOperation(op.client, op.document, op.operation);
      if (share instanceof GatewayError) {
        share.extensions.http = { status: 429 };
        return share;
      }
      if (share) setOperationValue(op.context, LEASE, share);
      return undefined;
    },
    finish(op) {
      operationValue(op.context, LEASE)?.release();
    },
  };
}

/** The shares an admitted operation holds until it finishes. */
const LEASE = new OperationKey<Lease>('fair-share lease');
