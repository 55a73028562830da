import type { GraphQLSchema } from 'graphql';
import type { CoreServices, GatewayServices, ResolvedUpstream } from '../context/services.js';
import { createErrorFormatter } from '../errors/format.js';
import { createDomainServices, servedDomains, type DomainServicesOptions } from '../domains/index.js';
import type { Tracing } from '../observability/tracing.js';
import { OncePerCause } from '../observability/oncePerCause.js';
import { createOperationPipeline, type OperationPipeline } from '../pipeline/index.js';
import { CapRefusals } from '../pipeline/capRefusals.js';
import { FairShare } from '../pipeline/rules/fairShare.js';
import { forDomain, UpstreamEstimates } from '../planning/upstreamEstimate.js';
import { buildSchema } from '../schema/build.js';
import { InProcessTransport } from '../transports/inProcess.js';
import { refreshChatModels } from '../upstreams/chat/client.js';
import { createUpstreamClients } from '../upstreams/clients.js';
import type { UpstreamDependencies } from '../upstreams/dependencies.js';
import { createTrustedToolset, loadTrustedOperations } from './trusted.js';

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
 * Builds everything an operation needs, once, in dependency order, each part from the parts before it: the schema of
 * the served domains, the trusted operations (validated against it), the upstream clients, each domain's long-lived
 * state, the upstream estimates and the domains' rules, the pipeline and its in-process entry; the trusted toolset
 * runs through that entry. Nothing is filled in later.
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
  const operations = loadTrustedOperations(schema, config);
  const formatErrors = createErrorFormatter({
    production: config.production,
    stackTraces: config.errorStackTraces,
    redact: dependencies.redact,
    log: dependencies.log,
    unexpectedLog: new OncePerCause(),
  });
  const core: CoreServices = {
    ...dependencies,
    upstreams: input.upstreams,
    clients: createUpstreamClients(dependencies),
    formatErrors,
  };
  // Each domain's state is built from the core services; nothing of it runs before an operation does.
  const domainServices = createDomainServices(core, input.domains);
  // Live chat providers are offered as their own GET /models lists them, read before the first request.
  await refreshChatModels(dependencies, core.clients.chat);
  // Graph tools run trusted operations through the pipeline while an operation runs there: the toolset reads the
  // in-process entry and the estimates when called, never while the gateway is being built.
  const trusted = createTrustedToolset({ schema, operations, pipeline: () => inProcess, estimates: () => estimates });
  const services: GatewayServices = { ...core, domains: domainServices, trusted };
  const domains = servedDomains(config.domains);
  const estimates = new UpstreamEstimates(
    services,
    domains.flatMap((d) => (d.estimate ? [forDomain(d.name, d.estimate)] : [])),
  );
  // With Redis, a client's caps hold for the cluster: each share is also a lease in shared state.
  const cluster = dependencies.state.status().store === 'redis' ? dependencies.state.holdings('fair-share') : undefined;
  const fairShare = new FairShare(config.fairShare, {
    keyed: config.apiKeys.length > 0,
    refusals: new CapRefusals({ metrics: dependencies.metrics, log: dependencies.log }),
    cluster,
  });
  const pipeline = createOperationPipeline({
    schema,
    services,
    estimates,
    tracing: input.tracing,
    fairShare,
    trustedDocuments: operations.list().map((op) => op.query),
    domainRules: domains.flatMap((d) => d.rules?.({ schema }) ?? []),
    staleAnswers: domains.flatMap((d) =>
      d.name && d.staleAnswers
        ? [{ domain: d.name, watch: (drop: () => void) => d.staleAnswers!(services, drop) }]
        : [],
    ),
    routerSharing: Object.fromEntries(domains.flatMap((d) => (d.name ? [[d.name, d.routerSharing]] : []))),
  });
  const inProcess = new InProcessTransport(pipeline);
  return { schema, services, pipeline, fairShare, inProcess };
}
