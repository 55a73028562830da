import { getArgumentValues, type FieldNode } from 'graphql';
import type { ChatTarget } from '../../config/env.js';
import { stableEstimator } from '../../runtime/upstreamBudget.js';
import { selectedFields } from '../../planning/selection.js';

type Input = { provider?: string; model?: string; fallbacks?: ChatTarget[]; input?: unknown[]; n?: number };

/**
 * The worst case per provider: a completion may call every target of its route and fallbacks once (retries aside);
 * embeddings one call per batch of the model's per-call limit; images one call per image.
 */
export const estimateChatRequests = stableEstimator((op, services) => {
  const root = op.operation.operation === 'mutation' ? 'Mutation' : op.operation.operation === 'subscription' ? 'Subscription' : undefined;
  if (!root) return {};
  const out: Record<string, number> = {};
  const add = (provider: string | undefined, n: number) => {
    const id = provider ?? 'chat';
    out[id] = (out[id] ?? 0) + n;
  };
  const routes = services.config.chatRoutes;
  const targets = (provider: string | undefined) =>
    provider?.startsWith('route:') ? (routes[provider.slice('route:'.length)]?.map((t) => t.provider) ?? [provider]) : [provider];
  const type = op.schema.getType(root) as { getFields(): Record<string, Parameters<typeof getArgumentValues>[0]> } | undefined;
  for (const f of selectedFields([{ selectionSet: op.operation.selectionSet } as FieldNode], root, op)) {
    if (!['createChatCompletion', 'chatCompletionStream', 'createEmbeddings', 'generateImage'].includes(f.name)) continue;
    const def = type?.getFields()[f.name];
    const input = def ? (getArgumentValues(def, f.nodes[0], op.variableValues).input as Input | undefined) : undefined;
    if (f.name === 'createEmbeddings') {
      const spec = services.clients.chat.get(input?.provider ?? '')?.spec.embeddings;
      const model = spec?.models.find((m) => m.id === input?.model || m.upstreamModel === input?.model) ?? spec?.raw?.(input?.model ?? '');
      add(input?.provider, Math.ceil((input?.input?.length ?? 0) / (model?.maxInputs ?? 1)));
    } else if (f.name === 'generateImage') {
      add(input?.provider, input?.n ?? 1);
    } else {
      for (const t of [input?.provider, ...(input?.fallbacks ?? []).map((fb) => fb.provider)].flatMap(targets)) add(t, 1);
    }
  }
  return out;
});
