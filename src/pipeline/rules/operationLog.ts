import type { GatewayServices } from '../../context/services.js';
import type { PipelineRule } from '../operation.js';
import { operationCost } from './demandControl.js';

/** Longest client-chosen string (operation name, graphql-ws id) that reaches a log line, a metric or an echo. */
export const MAX_CLIENT_STRING = 128;

/** `text` cut to {@link MAX_CLIENT_STRING} characters, marked as cut: a 1 MB id must not become a 1 MB log line. */
export function capClientString(text: string): string;
export function capClientString(text: string | null | undefined): string | null | undefined;
export function capClientString(text: string | null | undefined): string | null | undefined {
  if (typeof text !== 'string' || text.length <= MAX_CLIENT_STRING) return text;
  return `${text.slice(0, MAX_CLIENT_STRING)}…(${text.length} chars)`;
}

/** One `operation` log line and the operation metrics when any operation ends, on every transport alike. */
export function useOperationLog({ services }: { services: GatewayServices }): PipelineRule {
  const { metrics, log } = services;
  return {
    name: 'operationLog',
    finish(op) {
      const durationMs = performance.now() - op.started;
      const label = metrics.operationLabel(op.name);
      const outcome = op.errorCodes.size ? 'error' : 'ok';
      metrics.operations.series(op.type, label, outcome).inc();
      metrics.operationDuration.series(op.type, label).observe(durationMs / 1000);
      if (!log.isLevelEnabled('info')) return;
      log.info(
        {
          requestId: op.context.requestId,
          operation: capClientString(op.name),
          type: op.type,
          durationMs: Math.round(durationMs * 10) / 10,
          outcome,
          errorCodes: op.errorCodes.size ? [...op.errorCodes] : undefined,
          transport: op.transport,
          // Demand control's figures: estimated and actual cost, upstream requests expected and sent.
          cost: operationCost(op),
          // Who ran it, when a verified token said so (/mcp with MCP_AUTH=jwt); keys and addresses are never logged, and
          // neither is a name a router forwarded (ROUTER_CLIENT_HEADER may name a header that carries a credential).
          subject: op.client.router ? undefined : op.client.subject,
        },
        'operation',
      );
    },
  };
}
