import {
  context,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';

/**
 * OpenTelemetry traces: a SERVER span per GraphQL operation, a CLIENT span per upstream request beneath it, W3C
 * `traceparent` read from callers and sent to upstreams, exported over OTLP/HTTP (JSON).
 *
 * Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and then free: the SDK is never loaded, no context manager is
 * registered, and every hook below returns after one `undefined` check.
 */
export interface Tracing {
  tracer: Tracer;
  propagator: TextMapPropagator;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** How an operation reached the gateway: the `graphql.transport` attribute of its span. */
export type Transport = 'http' | 'ws' | 'sse' | 'multipart' | 'callback' | 'in-process' | 'mcp' | 'graph-tool';

/** An operation's span and the context that makes it the parent of everything its resolvers do. */
export interface OperationTrace {
  span: Span;
  context: Context;
}

/** What a caller may send to continue its own trace: HTTP headers, or graphql-ws connection/operation fields. */
export type TraceCarrier = { traceparent?: unknown; tracestate?: unknown; [other: string]: unknown };

const TRACING = createContextKey('federation-gateway tracing');
let contextManagerRegistered = false;

/** Starts the exporter when `endpoint` is set (the OTLP base URL; `/v1/traces` is appended, as the spec says). */
export async function startTracing(
  endpoint: string | undefined,
  serviceName = 'federation-gateway',
): Promise<Tracing | undefined> {
  if (!endpoint) return undefined;
  const [
    { BasicTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { W3CTraceContextPropagator },
    { AsyncLocalStorageContextManager },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
  ]);
  // Resolvers and DataLoader batches run in promise chains started inside the operation: AsyncLocalStorage carries
  // the operation's span to the HTTP layer without threading it through every client call.
  if (!contextManagerRegistered) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerRegistered = true;
  }
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  return {
    tracer: provider.getTracer(serviceName),
    propagator: new W3CTraceContextPropagator(),
    shutdown: () => provider.shutdown(),
  };
}

/** Opens the operation's span, as a child of the caller's `traceparent` when it sent a valid one. */
export function startOperationSpan(
  tracing: Tracing | undefined,
  carrier: TraceCarrier | undefined,
  transport: Transport,
): OperationTrace | undefined {
  if (!tracing) return undefined;
  const headers: Record<string, string> = {};
  if (typeof carrier?.traceparent === 'string') headers.traceparent = carrier.traceparent;
  if (typeof carrier?.tracestate === 'string') headers.tracestate = carrier.tracestate;
  const parent = tracing.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  const span = tracing.tracer.startSpan(
    'graphql.operation',
    { kind: SpanKind.SERVER, attributes: { 'graphql.transport': transport } },
    parent,
  );
  return { span, context: trace.setSpan(parent, span).setValue(TRACING, tracing) };
}

/** Names the span once the operation is known: `query ServiceHealth`, `subscription Stream`. */
export function nameOperationSpan(op: OperationTrace | undefined, type: string, name: string | null | undefined): void {
  if (!op) return;
  op.span.updateName(name ? `${type} ${name}` : type);
  op.span.setAttribute('graphql.operation.type', type);
  if (name) op.span.setAttribute('graphql.operation.name', name);
}

/** Ends the operation's span with its outcome and the `extensions.code`s of its errors. */
export function endOperationSpan(op: OperationTrace | undefined, errorCodes: Iterable<string>): void {
  // Already ended (an HTTP operation's plugin ends it with its codes; the transport ends what no plugin saw).
  if (!op?.span.isRecording()) return;
  const codes = [...new Set(errorCodes)];
  op.span.setAttribute('graphql.outcome', codes.length ? 'error' : 'ok');
  if (codes.length) {
    op.span.setAttribute('graphql.error.codes', codes);
    op.span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(',') });
  }
  op.span.end();
}

/** Runs `fn` with the operation's span active, so upstream requests made inside become its children. */
export function runInTrace<T>(op: OperationTrace | undefined, fn: () => T): T {
  return op ? context.with(op.context, fn) : fn();
}

/** The span of one upstream request and the headers that continue the trace upstream. */
export interface UpstreamSpan {
  headers: Record<string, string>;
  /** Records the answer; a streamed body keeps the span open until it is consumed or cancelled. */
  end(result: { status: number; attempts: number }, body?: NodeJS.EventEmitter): void;
  fail(error: unknown): void;
}

/**
 * Opens a CLIENT span for an upstream request when an operation span is active. Attributes name the upstream, the
 * method and the URL's path only: a query string may carry a key (OMDb's `apikey`), and headers are never recorded.
 */
export function startUpstreamSpan(
  upstream: string,
  method: string,
  url: string,
  attributes?: Record<string, string | number>,
): UpstreamSpan | undefined {
  if (!contextManagerRegistered) return undefined;
  const active = context.active();
  const tracing = active.getValue(TRACING) as Tracing | undefined;
  if (!tracing) return undefined;
  const { host, pathname } = new URL(url);
  const span = tracing.tracer.startSpan(
    `${method} ${upstream}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gateway.upstream': upstream,
        'http.request.method': method,
        'server.address': host,
        'url.path': pathname,
        ...attributes,
      },
    },
    active,
  );
  const headers: Record<string, string> = {};
  tracing.propagator.inject(trace.setSpan(active, span), headers, defaultTextMapSetter);
  return {
    headers,
    end({ status, attempts }, body) {
      span.setAttributes({ 'http.response.status_code': status, 'http.request.resend_count': attempts - 1 });
      if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
      if (body) body.once('close', () => span.end());
      else span.end();
    },
    fail(error) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: (error as { extensions?: { code?: string } })?.extensions?.code ?? (error as Error)?.name ?? 'error',
      });
      span.end();
    },
  };
}

/** A symbol property rather than a WeakMap: Apollo hands plugins a shallow copy of the context, which keeps it. */
const TRACE = Symbol('operation trace');

/** Remembers the operation's span on its request context (Apollo plugins see only the context). */
export function bindTrace<T extends object>(requestContext: T, op: OperationTrace | undefined): T {
  if (op) (requestContext as { [TRACE]?: OperationTrace })[TRACE] = op;
  return requestContext;
}

export function traceOf(requestContext: object): OperationTrace | undefined {
  return (requestContext as { [TRACE]?: OperationTrace })[TRACE];
}
