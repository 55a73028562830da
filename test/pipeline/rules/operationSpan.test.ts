import { expect, it } from 'vitest';
import { useOperationSpan } from '../../../src/pipeline/rules/operationSpan.js';
import type { Operation } from '../../../src/pipeline/operation.js';

it('opens, names and ends nothing when tracing is off (OTEL_EXPORTER_OTLP_ENDPOINT unset): no span, no work', () => {
  const rule = useOperationSpan({});
  const op = { context: {}, errorCodes: new Set<string>(), type: 'query', name: 'Q' } as unknown as Operation;
  rule.begin!(op, { requestId: 'r', transport: 'http' });
  expect(op.trace).toBeUndefined();
  expect(rule.admit!(op as never)).toBeUndefined();
  rule.finish!(op);
  expect(op.trace).toBeUndefined();
});
