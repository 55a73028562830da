import type { AnswerWarning } from '../errors/codes.js';
import { OperationKey, operationValue, perOperation, type GatewayContext } from './request.js';

/** Warnings of the operation not yet sent to the client. */
const PENDING = new OperationKey<AnswerWarning[]>("the operation's warnings");

/**
 * Adds a warning to what the operation answers (`extensions.warnings`, CONTRACT.md §11): the next result or event
 * that leaves for the client carries it (pipeline/rules/answerWarnings.ts), once. The same code and message twice
 * (a completion and its fallbacks on one model) is one warning.
 */
export function warnCaller(ctx: GatewayContext, warning: AnswerWarning): void {
  const pending = perOperation(ctx, PENDING, () => []);
  if (!pending.some((w) => w.code === warning.code && w.message === warning.message)) pending.push(warning);
}

/** The warnings added since the last answer left, and none from then on until another is added. */
export function takeWarnings(ctx: GatewayContext): AnswerWarning[] | undefined {
  const pending = operationValue(ctx, PENDING);
  if (!pending?.length) return undefined;
  return pending.splice(0);
}
