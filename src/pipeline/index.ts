import type { GraphQLSchema } from 'graphql';
import type { GatewayServices } from '../context/services.js';
import { incrementalDeliveryRule } from '../execution/deferStream.js';
import type { Tracing } from '../observability/tracing.js';
import type { UpstreamEstimates } from '../planning/upstreamEstimate.js';
import { OperationPipeline } from './core.js';
import type { PipelineRule } from './operation.js';
import { createApiKeyCheck } from './rules/apiKey.js';
import { useAnswerWarnings } from './rules/answerWarnings.js';
import { CachePolicies } from './rules/cachePolicy.js';
import { useCancellation } from './rules/cancellation.js';
import { useDemandControl } from './rules/demandControl.js';
import { useDocumentLimits } from './rules/documentLimits.js';
import { useFairShare, type FairShare } from './rules/fairShare.js';
import { useOperationInputs } from './rules/operationInputs.js';
import { useOperationLog } from './rules/operationLog.js';
import { useOperationSpan } from './rules/operationSpan.js';
import { PersistedOperations, usePersistedOperations } from './rules/persistedOperations.js';
import { useResponseCache, type StaleAnswers } from './rules/responseCache.js';
import type { RouterSharing } from '../domains/domain.js';
import { useShutdown } from './rules/shutdown.js';
import { useUpstreamBudget } from './rules/upstreamBudget.js';

export { OperationPipeline } from './core.js';
export type { AdmittedOperation, Caller, Operation, OperationPayload, PipelineRule } from './operation.js';
export type {
  Answer,
  ExecuteOptions,
  HostedOperation,
  OperationStream,
  ResolvedRequest,
  SharedAnswer,
  StreamConsumer,
} from './core.js';
export { OperationFailed } from './core.js';
export { operationOf } from './documentCache.js';
// What a transport needs of two rules: the API key check (a router's key), how a connection counts against its client.
export { createApiKeyCheck } from './rules/apiKey.js';
export type { ConnectionShare } from './rules/fairShare.js';

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
  /** The served domains' own rules (a domain's `rules`: the titles domain's OMDb quota), run after the budget. */
  domainRules?: readonly PipelineRule[];
  /** The served domains' signals of stale answers, for the response cache (a domain's `staleAnswers`). */
  staleAnswers?: readonly StaleAnswers[];
  /** Each served domain's `routerSharing`, for the `Cache-Control` a trusted router reads. */
  routerSharing?: Readonly<Record<string, RouterSharing | undefined>>;
}

/**
 * The gateway's pipeline: its rules in order, each a `useX(options)` factory of `rules/` (or a domain's), pushed by
 * configuration in this one list. `prepare` runs persisted operations before the size limit (an id becomes a
 * document first); `admit` runs the response cache before the budget (an answer found costs nothing to judge) and
 * the budget before the domains' rules (the titles domain's OMDb quota reuses the budget's estimate).
 */
export function createOperationPipeline(options: CreatePipelineOptions): OperationPipeline {
  const { schema, services } = options;
  const { config } = services;
  const limits = useDocumentLimits({ limits: config.limits });
  const persisted = config.persistedOperationsFile
    ? PersistedOperations.load(config.persistedOperationsFile)
    : undefined;
  for (const document of options.trustedDocuments ?? []) persisted?.allow(document);
  const shutdown = useShutdown();
  // Once per document for every rule that reads it: the cache policy, and the domains the operation selects.
  const policies = new CachePolicies(schema, options.routerSharing);
  const rules: PipelineRule[] = [
    ...(persisted ? [usePersistedOperations({ manifest: persisted })] : []),
    limits,
    useOperationSpan({ tracing: options.tracing }),
    // Before any rule that reads the variables (the cache's key, the budget's estimate): it coerces them.
    useOperationInputs({ schema, limits: config.limits, maxVariablesBytes: config.websocket.maxMessageBytes }),
    useResponseCache({ schema, services, staleAnswers: options.staleAnswers, policies }),
    useUpstreamBudget({ schema, estimates: options.estimates, max: config.limits.maxUpstreamRequests, policies }),
    ...(options.domainRules ?? []),
    // After the budget rule, whose estimate it prices; before fair share, so a refused operation takes no share.
    useDemandControl({ schema, services, budgets: clientBudgets(services) }),
    ...(options.fairShare ? [useFairShare({ fairShare: options.fairShare })] : []),
    useCancellation(),
    useAnswerWarnings(),
    useOperationLog({ services }),
    shutdown,
  ];
  return new OperationPipeline({
    schema,
    services,
    rules,
    validationRules: [...limits.validationRules, incrementalDeliveryRule],
    format: services.formatErrors,
    shutdown,
    fairShare: options.fairShare,
    // A router's key (TRUSTED_ROUTER_KEYS) is a key too; without GATEWAY_API_KEYS everyone is let in.
    apiKeyCheck: createApiKeyCheck(config.apiKeys.length ? [...config.apiKeys, ...config.trust.routerKeys] : []),
    persistedOnly: persisted !== undefined,
  });
}
