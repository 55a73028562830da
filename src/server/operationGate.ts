import { getOperationAST, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule } from 'graphql';
import { LRUCache } from 'lru-cache';
import { formatError } from '../errors.js';
import { bindTrace, endOperationSpan, nameOperationSpan, startOperationSpan, type OperationTrace, type TraceCarrier, type Tracing, type Transport } from '../observability/tracing.js';
import { createContext, type GatewayContext, type GatewayServices } from '../runtime/context.js';
import { budgetRefusal, estimateUpstreamRequests, operationShape, rememberEstimates, type UpstreamEstimator } from '../runtime/upstreamBudget.js';
import { checkDocumentSize } from './limits.js';
import type { PersistedOperations } from './persistedOperations.js';
import { clientOf } from './access.js';

/** An operation as a streaming transport (graphql-ws, SSE, multipart) receives it. */
export interface OperationPayload {
  query?: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  extensions?: Record<string, unknown> | null;
  documentId?: string;
}

/** One admitted operation from start to finish: its context, cancellation, span and the codes of its errors. */
export interface GatedOperation {
  document: DocumentNode;
  operation?: OperationDefinitionNode;
  name: string | null;
  type: string;
  transport: Transport;
  context: GatewayContext;
  /** Aborting it aborts the operation's upstream requests. */
  controller: AbortController;
  trace?: OperationTrace;
  started: number;
  errorCodes: Set<string>;
}

/**
 * What every transport outside Apollo does before and after executing an operation, so that graphql-ws, GraphQL over
 * SSE and multipart HTTP share one set of rules with Apollo's HTTP path: the persisted-operation manifest, the
 * document size and validation limits, the upstream-request budget (all before execution, with contract codes), then
 * one context per operation, its span, its error formatting, and one log line plus metrics when it ends.
 */
export class OperationGate {
  private readonly rules: readonly ValidationRule[];
  /**
   * Parsed and validated documents by text, as Apollo's document store does for HTTP: a chat UI subscribes with the
   * same document again and again, and parsing plus the limit rules would otherwise sit before every first token.
   */
  private readonly documents = new LRUCache<string, DocumentNode | GraphQLError[]>({ max: 1000, maxSize: 50 * 1024 * 1024, sizeCalculation: (_v, key) => key.length + 1 });

  constructor(
    private readonly options: {
      schema: GraphQLSchema;
      services: GatewayServices;
      /** Operation limits, applied as on HTTP. */
      validationRules: readonly ValidationRule[];
      persisted?: PersistedOperations;
      estimators: readonly UpstreamEstimator[];
      tracing?: Tracing;
    },
  ) {
    this.rules = [...specifiedRules, ...options.validationRules];
  }

  /** Checks an operation before anything runs; request errors come back instead of an operation. */
  admit(
    payload: OperationPayload,
    init: { requestId: string; transport: Transport; authorization?: string; trace?: TraceCarrier; apiKey?: string; remoteAddress?: string },
  ): GatedOperation | GraphQLError[] {
    const { services, schema, persisted } = this.options;
    const { limits } = services.config;
    let query = payload.query;
    if (persisted) {
      const resolved = persisted.resolve(payload as never);
      if (typeof resolved !== 'string') return [resolved];
      query = resolved;
    }
    const tooLarge = checkDocumentSize(query, limits);
    if (tooLarge) return [tooLarge];
    if (typeof query !== 'string') return [requestError(new GraphQLError('Send the operation as a string in "query".'), 'BAD_REQUEST')];
    const checked = this.checkedDocument(query);
    if (Array.isArray(checked)) return checked;
    const operation = getOperationAST(checked, payload.operationName) ?? undefined;
    if (!operation) {
      const which = payload.operationName ? `no operation named ${JSON.stringify(payload.operationName)}` : 'several operations and no operationName';
      return [requestError(new GraphQLError(`The document has ${which}: send the name of the one to run in "operationName".`), 'OPERATION_RESOLUTION_FAILURE')];
    }
    const estimates = estimateUpstreamRequests(operationShape(schema, checked, operation, payload.variables ?? undefined), services, this.options.estimators);
    const refusal = budgetRefusal(estimates, limits.maxUpstreamRequests);
    if (refusal) return [refusal];

    const controller = new AbortController();
    const client = clientOf(services.config.apiKeys, init.apiKey, init.remoteAddress);
    const context = createContext(services, { requestId: init.requestId, signal: controller.signal, authorization: init.authorization, client });
    rememberEstimates(context, operation, estimates);
    const name = payload.operationName ?? operation.name?.value ?? null;
    const trace = startOperationSpan(this.options.tracing, init.trace, init.transport);
    nameOperationSpan(trace, operation.operation, name);
    bindTrace(context, trace);
    return { document: checked, operation, name, type: operation.operation, transport: init.transport, context, controller, trace, started: performance.now(), errorCodes: new Set() };
  }

  /** Errors as the client sees them (contract codes, secrets redacted), noted for the operation's log line. */
  format(op: GatedOperation | undefined, errors: readonly { message: string; extensions?: Record<string, unknown> }[]) {
    const { services } = this.options;
    return errors.map((e) => {
      const formatted = formatError(e as never, { production: services.config.production, redact: services.redact });
      op?.errorCodes.add(String(formatted.extensions?.code));
      return formatted;
    });
  }

  /** Ends the operation: aborts what is left upstream, closes its span, logs it and counts it. */
  finish(op: GatedOperation): void {
    const { services } = this.options;
    op.controller.abort();
    endOperationSpan(op.trace, op.errorCodes);
    const durationMs = performance.now() - op.started;
    const label = services.metrics.operationLabel(op.name);
    const outcome = op.errorCodes.size ? 'error' : 'ok';
    services.metrics.operations.inc({ type: op.type, name: label, outcome });
    services.metrics.operationDuration.observe({ type: op.type, name: label }, durationMs / 1000);
    services.log.info(
      {
        requestId: op.context.requestId,
        operation: op.name,
        type: op.type,
        durationMs: Math.round(durationMs * 10) / 10,
        outcome,
        errorCodes: op.errorCodes.size ? [...op.errorCodes] : undefined,
        transport: op.transport,
      },
      'operation',
    );
  }

  private checkedDocument(query: string): DocumentNode | GraphQLError[] {
    const cached = this.documents.get(query);
    if (cached) return cached;
    let result: DocumentNode | GraphQLError[];
    try {
      const document = parse(query, { maxTokens: this.options.services.config.limits.maxTokens });
      const invalid = validate(this.options.schema, document, this.rules);
      result = invalid.length ? invalid.map((e) => (e.extensions.limit ? e : requestError(e, 'GRAPHQL_VALIDATION_FAILED'))) : document;
    } catch (error) {
      result = [requestError(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')];
    }
    this.documents.set(query, result);
    return result;
  }
}

function requestError(error: GraphQLError, reason: string): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code: reason } });
}
