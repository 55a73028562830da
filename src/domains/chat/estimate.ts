import { getArgumentValues, type FieldNode } from 'graphql';
import type { UpstreamEstimator } from '../../runtime/upstreamBudget.js';
import { selectedFields } from '../../planning/selection.js';

/** Each completion field is one request to its provider (retries aside). */
export const estimateChatRequests: UpstreamEstimator = (op) => {
  const root = op.operation.operation === 'mutation' ? 'Mutation' : op.operation.operation === 'subscription' ? 'Subscription' : undefined;
  if (!root) return {};
  const out: Record<string, number> = {};
  const type = op.schema.getType(root) as { getFields(): Record<string, Parameters<typeof getArgumentValues>[0]> } | undefined;
  for (const f of selectedFields([{ selectionSet: op.operation.selectionSet } as FieldNode], root, op)) {
    if (f.name !== 'createChatCompletion' && f.name !== 'chatCompletionStream') continue;
    const def = type?.getFields()[f.name];
    const input = def ? (getArgumentValues(def, f.nodes[0], op.variableValues).input as { provider?: string } | undefined) : undefined;
    const provider = input?.provider ?? 'chat';
    out[provider] = (out[provider] ?? 0) + 1;
  }
  return out;
};
