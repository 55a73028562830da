import {
  GraphQLError,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { ErrorCode } from '../errors/codes.js';
import { VariablesMemo } from './memo.js';
import { OperationKey, operationValue, setOperationValue, type GatewayContext } from '../context/request.js';
import type { GatewayServices } from '../context/services.js';

/** What an estimator sees of an operation before it runs (the parts of `GraphQLResolveInfo` planners read). */
export interface OperationShape {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  variableValues: Record<string, unknown>;
}

/**
 * A domain's estimate of the upstream requests an operation can cause, by upstream id. One marked `stable` depends
 * only on the operation, its variables and the gateway's configuration (not on caches or time), so its answer is
 * kept per operation and variables: a cached document is walked once, not once per request.
 */
export type UpstreamEstimator = ((op: OperationShape, services: GatewayServices) => Record<string, number>) & {
  stable?: boolean;
  /** The domain whose fields it counts ({@link forDomain}): an operation that selects none of them is not walked. */
  domain?: string;
};

/** `estimate` as the estimator of `domain`'s fields (its `stable` mark kept), or unchanged without a domain. */
export function forDomain(domain: string | undefined, estimate: UpstreamEstimator): UpstreamEstimator {
  if (domain === undefined) return estimate;
  return Object.assign((op: OperationShape, services: GatewayServices) => estimate(op, services), {
    stable: estimate.stable,
    domain,
  });
}

/** Marks `estimate` as depending only on the operation, its variables and the configuration (see {@link UpstreamEstimator}). */
export function stableEstimator(
  estimate: (op: OperationShape, services: GatewayServices) => Record<string, number>,
): UpstreamEstimator {
  return Object.assign(estimate, { stable: true });
}

/**
 * The shape of an operation with its variables. Made once per operation and variables object (the budget, the titles
 * quota and demand control each ask for it at admission, with the same coerced variables): shapes are shared, and
 * nobody changes them.
 */
export function operationShape(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): OperationShape {
  const key = variables ?? operation;
  if (lastShape?.operation !== operation || lastShape.schema !== schema || lastShapeKey !== key) {
    lastShape = { schema, operation, fragments: fragmentsOf(document), variableValues: variables ?? {} };
    lastShapeKey = key;
  }
  return lastShape;
}

/**
 * The last shape made, for its variables object (or operation without variables): the rules ask one after the other
 * at admission. One entry rather than a WeakMap by variables: a table that gains an entry per request is rebuilt in
 * the old generation as it fills (promoted garbage of every operation).
 */
let lastShape: OperationShape | undefined;
let lastShapeKey: object | undefined;

/**
 * A document's fragments by name, found once per document: the budget, the titles quota and demand control each make
 * the shape of every operation they admit, and a cached document is admitted again and again.
 */
const fragmentsByDocument = new WeakMap<DocumentNode, Readonly<Record<string, FragmentDefinitionNode>>>();
function fragmentsOf(document: DocumentNode): Readonly<Record<string, FragmentDefinitionNode>> {
  let fragments = fragmentsByDocument.get(document);
  if (!fragments) {
    const found: Record<string, FragmentDefinitionNode> = {};
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) found[d.name.value] = d;
    fragmentsByDocument.set(document, (fragments = found));
  }
  return fragments;
}

/**
 * Every domain's estimate of an operation's upstream requests, summed per upstream: the planners' view of what an
 * operation will cost before it runs. One per gateway, built at start-up, with the memo of its stable estimates (a
 * cached document is walked once per variables, not once per request).
 */
export class UpstreamEstimates {
  private readonly stable = new VariablesMemo<OperationDefinitionNode, Record<string, number>>(64);
  /** The estimators for each domains list (one per cached document's policy), sorted once, not per operation. */
  private readonly byDomains = new WeakMap<readonly string[], Selected>();
  private readonly all: Selected;

  constructor(
    private readonly services: GatewayServices,
    readonly estimators: readonly UpstreamEstimator[],
  ) {
    this.all = select(estimators, undefined, services);
  }

  /**
   * The estimate by upstream. An estimator that cannot make sense of the operation (bad arguments) contributes
   * nothing: the resolvers' own validation refuses it. `domains`, when known, are the domains whose fields the
   * operation selects (its cache policy's, found once per document): the estimators of the others count nothing for
   * it and are not run (a title lookup walks no Graph planner, a health lookup no OMDb estimate).
   */
  of(shape: OperationShape, domains?: readonly string[]): Readonly<Record<string, number>> {
    let selected = domains ? this.byDomains.get(domains) : this.all;
    if (!selected) this.byDomains.set(domains!, (selected = select(this.estimators, domains, this.services)));
    // Only stable estimators: their kept sum itself (frozen, shared by every operation of the document), no copy.
    if (!selected.other.length) return selected.stable.length ? this.stableTotals(shape, selected) : NO_REQUESTS;
    const totals = selected.stable.length ? { ...this.stableTotals(shape, selected) } : {};
    // Indexed: every operation of a domain with such estimators runs them, and an array iterator's results were
    // garbage of each (bench:alloc, `next`).
    const other = selected.other;
    for (let i = 0; i < other.length; i++) add(totals, run(other[i], shape, this.services));
    return totals;
  }

  /** The stable estimators' sum for the operation and its variables, computed once per (operation, variables). */
  private stableTotals(shape: OperationShape, selected: Selected): Readonly<Record<string, number>> {
    // Variables the operation does not declare cannot change its estimate; the domains say which estimators ran.
    const variables = shape.operation.variableDefinitions?.length ? shape.variableValues : undefined;
    // Watched: an estimate that read no variable is kept for the document alone (found without a variables key).
    return this.stable.watched(shape.operation, variables, selected.sum, shape, selected.key);
  }
}

/** The estimate of an operation none of whose estimators count anything. */
const NO_REQUESTS: Readonly<Record<string, number>> = Object.freeze({});

/** The estimators an operation selecting some domains needs, stable and not, and the memo's key for that choice. */
interface Selected {
  stable: readonly UpstreamEstimator[];
  other: readonly UpstreamEstimator[];
  key: string;
  /** The stable estimators' sum on an operation, with the variables the memo hands it (made once per selection). */
  sum(shape: OperationShape, variables: Record<string, unknown> | undefined): Readonly<Record<string, number>>;
}

function select(
  estimators: readonly UpstreamEstimator[],
  domains: readonly string[] | undefined,
  services: GatewayServices,
): Selected {
  const chosen = estimators.filter((e) => selects(domains, e));
  const stable = chosen.filter((e) => e.stable);
  return {
    stable,
    other: chosen.filter((e) => !e.stable),
    key: domains ? `${domains.join()}\n` : '',
    sum(shape, variables) {
      const seen = variables && variables !== shape.variableValues ? { ...shape, variableValues: variables } : shape;
      const totals: Record<string, number> = {};
      for (const estimate of stable) add(totals, run(estimate, seen, services));
      return Object.freeze(totals);
    },
  };
}

/** Whether an operation that selects `domains` (undefined: not known) can need `estimate`'s upstream. */
function selects(domains: readonly string[] | undefined, estimate: UpstreamEstimator): boolean {
  return !domains || estimate.domain === undefined || domains.includes(estimate.domain);
}

function run(estimate: UpstreamEstimator, shape: OperationShape, services: GatewayServices): Record<string, number> {
  try {
    return estimate(shape, services);
  } catch {
    return {};
  }
}

function add(totals: Record<string, number>, part: Record<string, number>): void {
  for (const upstream in part) totals[upstream] = (totals[upstream] ?? 0) + part[upstream];
}

/**
 * The upstream-request budget (GATEWAY_MAX_UPSTREAM_REQUESTS): refuses, before execution, an operation whose planned
 * upstream requests to any one upstream exceed `max`, naming the upstream, the estimate and the limit; `hint` says
 * what else lifts it.
 */
export function budgetRefusal(
  totals: Readonly<Record<string, number>>,
  max: number,
  hint?: string,
): GraphQLError | undefined {
  let upstream: string | undefined;
  let found = 0;
  for (const id in totals) {
    if (upstream === undefined || totals[id] > found) {
      upstream = id;
      found = totals[id];
    }
  }
  if (upstream === undefined || found <= max) return undefined;
  return new GraphQLError(
    `Upstream request budget of ${max} per upstream exceeded: this operation can cause ${found} requests to ${upstream}. Split it, select less, or raise GATEWAY_MAX_UPSTREAM_REQUESTS.${hint ? ` ${hint}` : ''}`,
    { extensions: { code: ErrorCode.QueryTooComplex, limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS', max, found, upstream } },
  );
}

/**
 * The estimates made in one operation's context, by operation: one operation's in place (nearly every context runs
 * one), a map only for more. Not a map for each: a subscription keeps its context for its whole life.
 */
interface Estimates {
  operation: OperationDefinitionNode;
  /** Shared by every operation of a document when only stable estimators counted it: read only. */
  totals: Readonly<Record<string, number>>;
  others?: Map<OperationDefinitionNode, Readonly<Record<string, number>>>;
}

const ESTIMATES = new OperationKey<Estimates>('upstream estimates by operation');

/** Keeps the operation's estimate in its request context, so a guard at resolve time need not walk it again. */
export function rememberEstimates(
  ctx: GatewayContext,
  operation: OperationDefinitionNode,
  totals: Readonly<Record<string, number>>,
): void {
  const held = operationValue(ctx, ESTIMATES);
  if (!held) setOperationValue(ctx, ESTIMATES, { operation, totals });
  else if (held.operation === operation) held.totals = totals;
  else (held.others ??= new Map()).set(operation, totals);
}

function totalsOf(
  ctx: GatewayContext,
  operation: OperationDefinitionNode,
): Readonly<Record<string, number>> | undefined {
  const held = operationValue(ctx, ESTIMATES);
  return held?.operation === operation ? held.totals : held?.others?.get(operation);
}

/** The estimate made before execution, by upstream (empty when none was made). */
export function rememberedTotals(
  ctx: GatewayContext,
  operation: OperationDefinitionNode,
): Readonly<Record<string, number>> {
  return totalsOf(ctx, operation) ?? {};
}

/** The estimate made before execution for `upstream`, if one was made for this operation. */
export function rememberedEstimate(
  ctx: GatewayContext,
  operation: OperationDefinitionNode,
  upstream: string,
): number | undefined {
  const totals = totalsOf(ctx, operation);
  return totals ? (totals[upstream] ?? 0) : undefined;
}
