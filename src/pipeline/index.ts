import type { GraphQLSchema } from 'graphql';
import type { GatewayServices } from '../context/services.js';
import { incrementalDeliveryRule } from '../execution/deferStream.js';
import type { Tracing } from '../observability/tracing.js';
import type { UpstreamEstimates } from '../planning/upstreamEstimate.js';
import { OperationPipeline } from './core.js';
import type { PipelineRule } from './operation.js';
import { createApiKeyCheck } from './rules/apiKey.js';
import { cancellation } from './rules/cancellation.js';
import { demandControl } from './rules/demandControl.js';
import { answerWarnings } from './rules/answerWarnings.js';
import { documentLimits } from './rules/documentLimits.js';
import { fairShareRule, type FairShare } from './rules/fairShare.js';
import { operationInputs } from './rules/operationInputs.js';
import { operationLog } from './rules/operationLog.js';
import { operationTracing } from './rules/operationSpan.js';
import { PersistedOperations, persistedOperationsRule } from './rules/persistedOperations.js';
import { ResponseCache } from './rules/responseCache.js';
import { Shutdown } from './rules/shutdown.js';
import { titlesQuota } from './rules/titlesQuota.js';
import { upstreamBudget } from './rules/upstreamBudget.js';

export { OperationPipeline } from './core.js';
export type { AdmittedOperation, Operation, OperationInit, OperationPayload, PipelineRule } from './operation.js';

/** The clients' cost budgets (CLIENT_COST_PER_MINUTE, CLIENT_COST_PER_DAY), shared by the replicas; none when both are 0. */
function clientBudgets(services: GatewayServices) {
  const { clientCostPerMinute: perMinute, clientCostPerDay: perDay } = services.config.demandControl;
  return perMinute || perDay ? services.state.clientBudgets('cost', { perMinute, perDay }) : undefined;
}

/** Options of {@link createOperationPipeline}. */
export interface CreatePipelineOptions {
  schema: GraphQLSchema;
  services: GatewayServices;
  /** Every domain's estimate of an operation's upstream requests, for the budget. */
  estimates: UpstreamEstimates;
  /** Undefined unless OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing?: Tracing;
  /** The caps per client (CLIENT_MAX_SUBSCRIPTIONS, CLIENT_MAX_CHAT_STREAMS, …), shared with the transports. */
  fairShare?: FairShare;
  /** Documents the gateway trusts itself (the trusted operations): with PERSISTED_OPERATIONS_FILE, they run too. */
  trustedDocuments?: readonly string[];
}

/**
 * The gateway's pipeline: its rules in order. `prepare` runs persisted operations before the size limit (an id
 * becomes a document first); `admit` runs the response cache before the budget (an answer found costs nothing to
 * judge) and the budget before the titles quota (which reuses the budget's estimate).
 */
export function createOperationPipeline(options: CreatePipelineOptions): OperationPipeline {
  const { schema, services } = options;
  const { config } = services;
  const limits = documentLimits(config.limits);
  const persisted = config.persistedOperationsFile ? PersistedOperations.load(config.persistedOperationsFile) : undefined;
  for (const document of options.trustedDocuments ?? []) persisted?.allow(document);
  const shutdown = new Shutdown();
  const rules: PipelineRule[] = [
    ...(persisted ? [persistedOperationsRule(persisted)] : []),
    limits,
    operationTracing(options.tracing),
    // Before any rule that reads the variables (the cache's key, the budget's estimate): it coerces them.
    operationInputs(schema, config.limits, config.websocket.maxMessageBytes),
    ResponseCache.create(schema, services),
    upstreamBudget(schema, options.estimates, config.limits.maxUpstreamRequests),
    titlesQuota(schema),
    // After the budget rule, whose estimate it prices; before fair share, so a refused operation takes no share.
    demandControl(schema, services, clientBudgets(services)),
    ...(options.fairShare ? [fairShareRule(options.fairShare)] : []),
    cancellation,
    answerWarnings,
    operationLog(services),
    shutdown,
  ];
  return new OperationPipeline({
    schema,
    services,
    rules,
    validationRules: [...limits.validationRules, incrementalDeliveryRule],
    format: services.formatErrors,
    shutdown,
    // A router's key (TRUSTED_ROUTER_KEYS) is a key too; without GATEWAY_API_KEYS everyone is let in.
    apiKeyCheck: createApiKeyCheck(config.apiKeys.length ? [...config.apiKeys, ...config.trust.routerKeys] : []),
    persistedOnly: persisted !== undefined,
  });
}
