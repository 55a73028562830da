import type { ExecutionResult, FormattedExecutionResult, GraphQLSchema } from 'graphql';
import { OperationKey, operationValue, setOperationValue } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import type { DemandControlConfig } from '../../config/env.js';
import { ErrorCode, GatewayError } from '../../errors/codes.js';
import type { IncrementalPayload } from '../../execution/deferStream.js';
import { CostModel, UPSTREAM_REQUEST_COST, type CostPlan } from '../../planning/cost.js';
import { operationShape, rememberedTotals } from '../../planning/upstreamEstimate.js';
import type { ClientBudgets } from '../../state/index.js';
import type { UpstreamTally } from '../../upstreams/http/tally.js';
import type { Operation, PipelineRule } from '../operation.js';

/** `extensions.cost` of every answer (CONTRACT.md section 10). */
export interface CostExtension {
  /** Before execution: the objects the operation is expected to answer plus 10 per upstream request the planners expect. */
  estimated: number;
  /** So far: the objects answered (a subscription: its estimate) plus 10 per upstream request sent, plus the work the gateway did itself (1 per MiB of an uploaded file). */
  actual: number;
  upstreamRequestsEstimated: number;
  upstreamRequests: number;
}

/** One operation's cost as it runs. */
class CostAccount {
  /** Objects in the answers sent so far. */
  answered = 0;
  /** What the client's budget was charged: the estimate at admission, then each request beyond it (subscriptions). */
  charged = 0;

  constructor(
    readonly plan: CostPlan,
    readonly requestsEstimated: number,
    readonly tally: UpstreamTally,
    readonly subscription: boolean,
  ) {}

  get estimated(): number {
    return this.plan.structure + UPSTREAM_REQUEST_COST * this.requestsEstimated;
  }

  get actual(): number {
    // A subscription's events are pushed, not asked for: it costs its start and the requests it makes.
    return (
      (this.subscription ? this.plan.structure : this.answered) +
      UPSTREAM_REQUEST_COST * this.tally.total +
      this.tally.work
    );
  }

  extension(): CostExtension {
    return {
      estimated: this.estimated,
      actual: this.actual,
      upstreamRequestsEstimated: this.requestsEstimated,
      upstreamRequests: this.tally.total,
    };
  }
}

const ACCOUNT = new OperationKey<CostAccount>("the operation's cost");

/** The operation's cost so far (undefined before admission). */
export function operationCost(op: Operation): CostExtension | undefined {
  return operationValue(op.context, ACCOUNT)?.extension();
}

/**
 * Demand control (docs/security.md, "Demand control"): at admission, the operation's cost from the planners'
 * upstream estimate (the budget rule's) and its expected objects (planning/cost.ts); with COST_MODE=enforce, over
 * MAX_OPERATION_COST it is refused before any upstream request; with CLIENT_COST_PER_MINUTE or CLIENT_COST_PER_DAY,
 * the client's budgets pay the estimate or refuse it (RATE_LIMITED, `retryAfterSeconds`, HTTP `Retry-After`). Every
 * answer carries `extensions.cost`; when the operation ends its budget is corrected to the actual cost, and a
 * subscription pays for each upstream request beyond its estimate as it sends it. Metrics and the operation log
 * line carry the figures.
 */
export function useDemandControl(options: {
  schema: GraphQLSchema;
  services: GatewayServices;
  budgets?: ClientBudgets;
}): PipelineRule {
  const { schema, services, budgets } = options;
  const config: DemandControlConfig = services.config.demandControl;
  const model = new CostModel(schema);
  const { metrics } = services;
  // Every operation observes these four series: kept, not looked up by labels each time.
  const observed = {
    estimatedCost: metrics.operationCost.series('estimated'),
    actualCost: metrics.operationCost.series('actual'),
    estimatedRequests: metrics.operationUpstreamRequests.series('estimated'),
    actualRequests: metrics.operationUpstreamRequests.series('actual'),
  };
  return {
    name: 'demandControl',
    admit(op) {
      const shape = operationShape(schema, op.document, op.operation, op.variables);
      const plan = model.plan(shape);
      let requests = 0;
      const totals = rememberedTotals(op.context, op.operation);
      for (const upstream in totals) requests += totals[upstream];
      const account = new CostAccount(plan, requests, op.context.upstreamRequests, op.type === 'subscription');
      setOperationValue(op.context, ACCOUNT, account);
      const estimated = account.estimated;
      if (config.mode === 'enforce' && estimated > config.maxOperationCost) {
        metrics.costRefusals.inc({ limit: 'MAX_OPERATION_COST' });
        return new GatewayError(
          ErrorCode.QueryTooComplex,
          `This operation's estimated cost is ${estimated} (${plan.structure} for the objects it selects, ${UPSTREAM_REQUEST_COST} for each of the ${requests} upstream requests it can cause), over MAX_OPERATION_COST of ${config.maxOperationCost}: select less, page with first, split it, or raise MAX_OPERATION_COST.`,
          { limit: 'MAX_OPERATION_COST', max: config.maxOperationCost, cost: estimated, http: { status: 400 } },
        );
      }
      if (!budgets) return undefined;
      const client = op.context.client;
      const over = overWholeBudget(estimated, config);
      if (over) {
        metrics.costRefusals.inc({ limit: over.limit });
        return new GatewayError(
          ErrorCode.QueryTooComplex,
          `This operation's estimated cost is ${estimated}, more than ${over.limit} of ${over.max} allows one client at all: select less, page with first, or split it.`,
          { limit: over.limit, max: over.max, cost: estimated, http: { status: 400 } },
        );
      }
      return budgets.spend(client, estimated).then((verdict) => {
        if (verdict.ok) {
          account.charged = estimated;
          if (account.subscription) chargeAsItGoes(account, budgets, client);
          return undefined;
        }
        const limit = verdict.limit === 'perDay' ? 'CLIENT_COST_PER_DAY' : 'CLIENT_COST_PER_MINUTE';
        const max = verdict.limit === 'perDay' ? config.clientCostPerDay : config.clientCostPerMinute;
        const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
        metrics.costRefusals.inc({ limit });
        return new GatewayError(
          ErrorCode.RateLimited,
          `This operation's estimated cost of ${estimated} does not fit what is left of this client's ${limit} of ${max}: retry in ${seconds} s, or spend less.`,
          { limit, max, cost: estimated, retryAfterSeconds: seconds, http: { status: 429 } },
        );
      });
    },
    answered(op, result) {
      let account = operationValue(op.context, ACCOUNT);
      // An answer the response cache found at admission (the rules after it did not run): no upstream request.
      if (!account && op.answer && op.document && op.operation) {
        account = new CostAccount(
          model.plan(operationShape(schema, op.document, op.operation, op.variables)),
          0,
          op.context.upstreamRequests,
          false,
        );
        setOperationValue(op.context, ACCOUNT, account);
      }
      if (!account) return undefined;
      if (!account.subscription) account.answered += countAnswer(model, account.plan, result);
      return { cost: account.extension() };
    },
    finish(op) {
      const account = operationValue(op.context, ACCOUNT);
      if (!account) return;
      const actual = account.actual;
      observed.estimatedCost.observe(account.estimated);
      observed.actualCost.observe(actual);
      observed.estimatedRequests.observe(account.requestsEstimated);
      observed.actualRequests.observe(account.tally.total);
      account.tally.onSent = undefined;
      if (budgets && account.charged) budgets.adjust(op.context.client, actual - account.charged);
    },
  };
}

/** An estimate past a whole budget can never fit: refused as too costly rather than told to wait. */
function overWholeBudget(estimated: number, config: DemandControlConfig): { limit: string; max: number } | undefined {
  if (config.clientCostPerMinute > 0 && estimated > config.clientCostPerMinute)
    return { limit: 'CLIENT_COST_PER_MINUTE', max: config.clientCostPerMinute };
  if (config.clientCostPerDay > 0 && estimated > config.clientCostPerDay)
    return { limit: 'CLIENT_COST_PER_DAY', max: config.clientCostPerDay };
  return undefined;
}

/** A subscription pays each upstream request beyond those its estimate paid for, as it sends it. */
function chargeAsItGoes(account: CostAccount, budgets: ClientBudgets, client: string): void {
  account.tally.onSent = () => {
    if (account.tally.total <= account.requestsEstimated) return;
    account.charged += UPSTREAM_REQUEST_COST;
    budgets.adjust(client, UPSTREAM_REQUEST_COST);
  };
}

/** The objects one answer (a whole result, the initial part, or a later part's entries) brings. */
function countAnswer(
  model: CostModel,
  plan: CostPlan,
  result: ExecutionResult | FormattedExecutionResult | IncrementalPayload,
): number {
  let n = model.countAnswered(plan, result.data);
  // No `?? []` to iterate: a whole result, every answer but a later part, made an array and an iterator for nothing.
  const incremental = (result as IncrementalPayload).incremental;
  if (incremental)
    for (let i = 0; i < incremental.length; i++)
      n += model.countAt(plan, incremental[i].path, incremental[i].data ?? incremental[i].items);
  return n;
}
