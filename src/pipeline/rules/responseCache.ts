import {
  Kind,
  print,
  valueFromASTUntyped,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { createHash } from 'node:crypto';
import { OperationKey, operationValue, setOperationValue } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import type { RouterSharing } from '../../domains/domain.js';
import type { ResponseStore } from '../../state/index.js';
import { CachePolicies, CacheScope } from './cachePolicy.js';
import type { AdmittedOperation, Operation, PipelineRule } from '../operation.js';

/**
 * What makes a domain's cached answers stale besides the gateway's own mutations (a domain's `staleAnswers`: the
 * enterprise domain's live health feed): `watch` subscribes `drop` and gives the unsubscribe.
 */
export interface StaleAnswers {
  /** The domain whose answers are dropped (a cached answer is tagged with the domains it selects). */
  domain: string;
  watch(drop: () => void): Promise<() => void>;
}

/** Options of {@link useResponseCache}. */
export interface ResponseCacheOptions {
  schema: GraphQLSchema;
  services: GatewayServices;
  /** The served domains' signals of stale answers. */
  staleAnswers?: readonly StaleAnswers[];
  /** Each served domain's `routerSharing`: how far a trusted router may share its answers. */
  routerSharing?: Readonly<Record<string, RouterSharing | undefined>>;
  /** The pipeline's cache policies, shared with the rules that read an operation's domains. @default its own */
  policies?: CachePolicies;
}

/**
 * The response cache rule (RESPONSE_CACHE_MAX_BYTES; off at 0, its policy still computed for `Cache-Control`). Each
 * stale-answer signal drops its domain's answers when it fires; they stop listening when the gateway closes.
 */
export function useResponseCache(options: ResponseCacheOptions): ResponseCache {
  const { schema, services } = options;
  const maxBytes = services.config.responseCacheMaxBytes;
  const store = maxBytes > 0 ? services.state.responseStore('responses', { maxBytes }) : undefined;
  const cache = new ResponseCache(schema, store, options.policies ?? new CachePolicies(schema, options.routerSharing));
  if (store) {
    for (const stale of options.staleAnswers ?? []) {
      const listening = stale.watch(() => void cache.invalidate([stale.domain]));
      services.onClose.push(async () => (await listening)());
    }
  }
  return cache;
}

/**
 * The response cache: a query's whole answer, kept for the `maxAge` of its `@cacheControl` policy and served at
 * admission without executing, on every transport the pipeline serves (HTTP, graphql-ws, SSE, multipart, in
 * process) and for `_entities` alike (a router resolving the same references twice pays their upstream requests
 * once). Keyed by the document, operation name and variables; for `PRIVATE` data, or whenever the caller sends its
 * own `Authorization` (delegated Graph access: its tenant's data), by a hash of that caller too. Only answers
 * without errors are kept. A mutation drops the answers of the domains it writes (after it ran, before its answer
 * leaves); a domain's stale-answer signal drops that domain's answers (the enterprise domain's live health feed).
 *
 * The policy is computed for every operation, cache on or off (the HTTP adapter turns it into `Cache-Control`).
 */
export class ResponseCache implements PipelineRule {
  readonly name = 'responseCache';
  readonly policies: CachePolicies;
  private readonly documents = new WeakMap<DocumentNode, string>();
  /**
   * Invalidations this replica made or heard, and the count each query saw at admission: a query that ran while a
   * write invalidated may have read the old data, so its answer is not kept.
   */
  private invalidations = 0;
  /**
   * Keeps a query's answer, or drops what a mutation wrote. Absent with the cache off, so the pipeline does not wait
   * on it after every operation.
   */
  readonly completed?: (op: AdmittedOperation, result: ExecutionResult | FormattedExecutionResult) => Promise<void>;

  constructor(
    schema: GraphQLSchema,
    /** Undefined when RESPONSE_CACHE_MAX_BYTES is 0. */
    private readonly store: ResponseStore | undefined,
    policies: CachePolicies,
  ) {
    this.policies = policies;
    if (store) this.completed = (op, result) => this.keep(op, result);
  }

  admit(op: AdmittedOperation): undefined | Promise<undefined> {
    let policy = this.policies.of(op.document, op.operation);
    const typenames = entityTypenames(op);
    if (typenames) policy = this.policies.forEntities(policy, typenames);
    op.cachePolicy = policy;
    const key = this.store && this.keyOf(op);
    if (!key) return undefined;
    setOperationValue(op.context, ADMITTED_AT, this.invalidations);
    return this.store!.get(key, policy.domains).then((body) => {
      if (body) op.answer = JSON.parse(body) as ExecutionResult;
      return undefined;
    });
  }

  private async keep(op: AdmittedOperation, result: ExecutionResult | FormattedExecutionResult): Promise<void> {
    if (!this.store || !op.cachePolicy) return;
    if (op.type === 'mutation') return this.invalidate(op.cachePolicy.domains);
    const key = this.keyOf(op);
    if (!key || result.errors?.length || !result.data || operationValue(op.context, ADMITTED_AT) !== this.invalidations)
      return;
    await this.store.set(
      key,
      JSON.stringify({ data: result.data }),
      op.cachePolicy.maxAge * 1000,
      op.cachePolicy.domains,
    );
  }

  /** Drops the answers tagged with any of `tags` (domains). */
  invalidate(tags: readonly string[]): Promise<void> {
    this.invalidations++;
    return this.store!.invalidate(tags);
  }

  /** The entry's key, or undefined when the answer may not be kept (uncacheable, or private without a caller). */
  private keyOf(op: AdmittedOperation): string | undefined {
    const policy = op.cachePolicy;
    if (op.type !== 'query' || !policy || policy.maxAge <= 0) return undefined;
    const caller = op.context.caller.authorization;
    if (policy.scope === CacheScope.Private && !caller) return undefined;
    // The document's own digest once per document: a request hashes that, not the document's text again.
    let digest = this.documents.get(op.document);
    if (digest === undefined)
      this.documents.set(op.document, (digest = createHash('sha256').update(print(op.document)).digest('base64url')));
    const hash = createHash('sha256')
      .update(digest)
      .update('\0')
      .update(op.name ?? '')
      .update('\0')
      .update(JSON.stringify(op.variables ?? {}));
    // The caller's token is hashed into the key, never stored.
    if (caller) hash.update('\0').update(caller);
    return hash.digest('base64url');
  }
}

/**
 * The `__typename`s the representations of an operation's `_entities` fields name (in a variable, as routers send
 * them, or written inline); undefined when it has none, or one it cannot read (then the policy names every type).
 */
function entityTypenames(op: AdmittedOperation): Set<string> | undefined {
  let typenames: Set<string> | undefined;
  const selections = op.operation.selectionSet.selections;
  // Indexed: every operation walks its top fields here, and an iterator's results were garbage of each.
  for (let i = 0; i < selections.length; i++) {
    const selection = selections[i];
    if (selection.kind !== Kind.FIELD || selection.name.value !== '_entities') continue;
    const value = selection.arguments?.find((a) => a.name.value === 'representations')?.value;
    if (!value) return undefined;
    const list = value.kind === Kind.VARIABLE ? op.variables?.[value.name.value] : valueFromASTUntyped(value);
    if (!Array.isArray(list)) return undefined;
    typenames ??= new Set();
    for (const r of list) {
      const name = (r as { __typename?: unknown } | null)?.__typename;
      if (typeof name === 'string') typenames.add(name);
    }
  }
  return typenames;
}

/** The invalidation count a query saw at admission ({@link ResponseCache}). */
const ADMITTED_AT = new OperationKey<number>('the invalidations the response cache had seen at admission');

/**
 * `Cache-Control` of an HTTP answer: `public, max-age=N` for an answer any caller would get, when the cache that keeps
 * it is allowed to hand it to others:
 * - a GET query of public data sent without a credential (a CDN or proxy may keep it and serve it to anyone);
 * - a trusted router's POST (TRUSTED_ROUTER_KEYS: how every router calls; its entity cache shares an entry only when
 *   it is public), when every domain selected may be shared by a router (`routerSharing`): titles always; health
 *   only when the gateway answered with its own application permissions, not with a caller's `Authorization`; chat
 *   never. The end client a router names (ROUTER_CLIENT_HEADER) does not change the data. Not a router's GET: a CDN
 *   keyed by the URL alone would hand it to callers without a key.
 * `private, max-age=N` for private data, and for any other answer that needed a credential: an API key
 * (GATEWAY_API_KEYS: a shared cache would hand it to callers without one), the caller's own `Authorization`, a
 * subject a token named, or a POST (only the caller may keep it); `no-store` for mutations, answers with errors and
 * anything with `maxAge` 0.
 */
export function cacheControlHeader(op: Operation, method: string, hasErrors: boolean): string {
  const policy = op.cachePolicy;
  if (op.type !== 'query' || hasErrors || !policy || policy.maxAge <= 0) return 'no-store';
  const caller = op.context.caller;
  const shared =
    policy.scope === CacheScope.Public &&
    (caller.router
      ? method === 'POST' &&
        (policy.routerSharing === 'always' || (policy.routerSharing === 'application' && !caller.authorization))
      : method === 'GET' && !caller.authorization && !caller.apiKey && !op.client.subject);
  return `${shared ? 'public' : 'private'}, max-age=${policy.maxAge}`;
}
