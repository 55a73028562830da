import { takeWarnings } from '../../context/warnings.js';
import type { PipelineRule } from '../operation.js';

/**
 * `extensions.warnings: [{ code, message }]` (CONTRACT.md §11) on the answer that leaves after a resolver warned
 * (context/warnings.ts): a query's or mutation's result, or a subscription's next event. Each warning is sent once.
 */
export function useAnswerWarnings(): PipelineRule {
  return {
    name: 'answerWarnings',
    answered(op) {
      const warnings = takeWarnings(op.context);
      return warnings ? { warnings } : undefined;
    },
  };
}
