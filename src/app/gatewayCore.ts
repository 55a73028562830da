import type { GraphQLSchema } from 'graphql';
import type { GatewayServices, ResolvedUpstream } from '../context/services.js';
import { createErrorFormatter } from '../errors/format.js';
import { createDomainServices, upstreamEstimators, type DomainServicesOptions } from '../domains/index.js';
import type { Tracing } from '../observability/tracing.js';
import { createOperationPipeline, type OperationPipeline } from '../pipeline/index.js';
import { FairShare } from '../pipeline/rules/fairShare.js';
import { UpstreamEstimates } from '../planning/upstreamEstimate.js';
import { buildSchema } from '../schema/build.js';
import { InProcessTransport } from '../transports/inProcess.js';
import { refreshChatModels } from '../upstreams/chat/client.js';
import { createUpstreamClients } from '../upstreams/clients.js';
import type { UpstreamDependencies } from '../upstreams/dependencies.js';
import { bindTrustedToolset, loadTrustedToolset } from './trusted.js';

/** A gateway without its transports: the schema, the services every request shares, and the operation pipeline. */
export interface GatewayCore {
  schema: GraphQLSchema;
  services: GatewayServices;
  pipeline: OperationPipeline;
  /** The caps per client, which the transports also apply to connections. */
  fairShare: FairShare;
  /** The in-process transport: trusted operations (for /mcp and chat graph tools), tools and tests run through it. */
  inProcess: InProcessTransport;
}

/**
 * Builds everything an operation needs, once, in dependency order: the schema of the served domains, the upstream
 * clients, the trusted operations, each domain's long-lived state, the upstream estimates, and the pipeline; then the
 * trusted operations become runnable through that pipeline (for /mcp and chat graph tools alike).
 */
export async function createGatewayCore(input: {
  dependencies: UpstreamDependencies;
  upstreams: ResolvedUpstream[];
  /** Undefined unless OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing?: Tracing;
  domains?: DomainServicesOptions;
}): Promise<GatewayCore> {
  const { dependencies } = input;
  const { config } = dependencies;
  const schema = await buildSchema(config.domains, config.subgraph);
  const trusted = loadTrustedToolset(schema, config);
  // The domains' state is built from the services it belongs to; nothing reads it before an operation runs.
  const formatErrors = createErrorFormatter({ production: config.production, redact: dependencies.redact, log: dependencies.log });
  const services: GatewayServices = { ...dependencies, upstreams: input.upstreams, clients: createUpstreamClients(dependencies), trusted, formatErrors, domains: undefined as never };
  services.domains = createDomainServices(services, input.domains);
  // Live chat providers are offered as their own GET /models lists them, read before the first request.
  await refreshChatModels(dependencies, services.clients.chat);
  const estimates = new UpstreamEstimates(services, upstreamEstimators);
  // With Redis, a client's caps hold for the cluster: each share is also a lease in shared state.
  const cluster = dependencies.state.status().store === 'redis' ? dependencies.state.holdings('fair-share') : undefined;
  const fairShare = new FairShare(config.fairShare, { keyed: config.apiKeys.length > 0, metrics: dependencies.metrics, cluster });
  const trustedDocuments = trusted.operations.list().map((op) => op.query);
  const pipeline = createOperationPipeline({ schema, services, estimates, tracing: input.tracing, fairShare, trustedDocuments });
  const inProcess = new InProcessTransport(pipeline);
  bindTrustedToolset(trusted, inProcess, estimates);
  return { schema, services, pipeline, fairShare, inProcess };
}
