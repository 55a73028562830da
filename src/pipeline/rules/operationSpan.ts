import {
  bindTrace,
  endOperationSpan,
  nameOperationSpan,
  startOperationSpan,
  type Tracing,
} from '../../observability/tracing.js';
import type { PipelineRule } from '../operation.js';

/**
 * One OpenTelemetry span per operation (OTEL_EXPORTER_OTLP_ENDPOINT), a child of the caller's `traceparent`, named
 * once the operation is known and ended with the codes of its errors. Without tracing every hook returns at once.
 */
export function useOperationSpan({ tracing }: { tracing?: Tracing }): PipelineRule {
  return {
    name: 'tracing',
    begin(op, init) {
      if (!tracing) return;
      op.trace = startOperationSpan(tracing, init.trace, init.transport);
      bindTrace(op.context, op.trace);
    },
    admit(op) {
      nameOperationSpan(op.trace, op.type, op.name);
      return undefined;
    },
    finish(op) {
      endOperationSpan(op.trace, op.errorCodes);
    },
  };
}
