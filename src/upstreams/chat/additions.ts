import type { GatewayError } from '../../errors/codes.js';
import type { LearnedFacts } from './models/types.js';
import type { ChatRequest } from './types.js';

/**
 * What the gateway writes into a request on its own, not from the caller's input, and what a provider's refusal of it
 * teaches: the reasoning switch it adds to turn reasoning off under a forced tool choice (refused: the model always
 * reasons), and GLM's `tool_stream` (refused: the model does not stream tool arguments). A refused addition is
 * dropped and the request sent once more (client.ts); the fact is learned for every replica (models/learned.ts) only
 * when that answer confirms it: a success, or another refusal. The same refusal again means the field was not the
 * cause (a caller's text that happens to name it), and nothing is learned: no caller can teach every replica a
 * false fact.
 */
interface Addition {
  /** The provider's refusal names it so. */
  named: RegExp;
  learned: LearnedFacts;
}

const ADDITIONS: Readonly<Record<string, Addition>> = {
  thinking: { named: /thinking/i, learned: { reasoning: 'always' } },
  tool_stream: { named: /tool_stream/i, learned: { toolStream: false } },
};

export type GatewayAddition = keyof typeof ADDITIONS;

/** The fields of `body` that are the gateway's own additions. */
export function gatewayAdditions(req: ChatRequest, body: Record<string, unknown>): GatewayAddition[] {
  const out: GatewayAddition[] = [];
  if (req.reasoning?.gatewayAdded && body.thinking !== undefined) out.push('thinking');
  if (body.tool_stream !== undefined) out.push('tool_stream');
  return out;
}

/** The addition a provider's refusal (HTTP 400 or 422) names, with the fact it teaches; undefined when none. */
export function refusedAddition(
  error: GatewayError,
  additions: readonly GatewayAddition[],
): { field: GatewayAddition; learned: LearnedFacts } | undefined {
  const status = error.extensions.status;
  if (status !== 400 && status !== 422) return undefined;
  const field = additions.find((f) => ADDITIONS[f].named.test(error.message));
  return field ? { field, learned: ADDITIONS[field].learned } : undefined;
}

/** Whether the answer to the request without the addition confirms that the addition was refused (see above). */
export function confirmsRefusal(first: GatewayError, retried: GatewayError | undefined): boolean {
  if (!retried) return true;
  // Ark's messages end with a fresh request id.
  const said = (e: GatewayError) =>
    `${e.extensions.status} ${e.extensions.upstreamCode ?? ''} ${e.message.replace(/Request id:\s*\w+/gi, '')}`;
  return said(first) !== said(retried);
}
