import { getArgumentValues, type FieldNode } from 'graphql';
import type { ChatTarget } from '../../config/env.js';
import { stableEstimator } from '../../planning/upstreamEstimate.js';
import { selectedFields } from '../../planning/selection.js';
import type { GatewayServices } from '../../context/services.js';

type Input = {
  provider?: string;
  model?: string;
  fallbacks?: ChatTarget[];
  input?: unknown[];
  n?: number;
  graphTools?: string[] | null;
  documents?: string[] | null;
};

/** An upload to a files API: the upload, the extracted text, the token count, and a delete when it fails after. */
const UPLOAD_REQUESTS = 4;

const CHAT_FIELDS = new Set([
  'createChatCompletion',
  'chatCompletionStream',
  'createEmbeddings',
  'generateImage',
  'uploadChatDocument',
  'deleteChatDocument',
]);

/**
 * The worst case per provider: a completion may call every target of its route and fallbacks once (retries aside),
 * and with `graphTools` once per turn (CHAT_GRAPH_TOOL_MAX_STEPS) plus, per upstream, CHAT_GRAPH_TOOL_MAX_CALLS times
 * the costliest named operation with its default variables (each call is checked again with its own variables);
 * embeddings one call per batch of the model's per-call limit; images one call per image; a completion's documents one
 * read each (their texts are usually cached); an upload to a files API four calls, a delete one.
 */
export const estimateChatRequests = stableEstimator((op, services) => {
  const root =
    op.operation.operation === 'mutation'
      ? 'Mutation'
      : op.operation.operation === 'subscription'
        ? 'Subscription'
        : undefined;
  if (!root) return {};
  const out: Record<string, number> = {};
  const add = (provider: string | undefined, n: number) => {
    const id = provider ?? 'chat';
    out[id] = (out[id] ?? 0) + n;
  };
  const routes = services.config.chatRoutes;
  const targets = (provider: string | undefined) =>
    provider?.startsWith('route:')
      ? (routes[provider.slice('route:'.length)]?.map((t) => t.provider) ?? [provider])
      : [provider];
  const type = op.schema.getType(root) as
    | { getFields(): Record<string, Parameters<typeof getArgumentValues>[0]> }
    | undefined;
  for (const f of selectedFields([{ selectionSet: op.operation.selectionSet } as FieldNode], root, op)) {
    if (!CHAT_FIELDS.has(f.name)) continue;
    const def = type?.getFields()[f.name];
    const args = def ? getArgumentValues(def, f.nodes[0], op.variableValues) : {};
    const input = args.input as Input | undefined;
    if (f.name === 'uploadChatDocument') {
      // Only a provider with a files API is called; the gateway extracts for the others.
      const provider = typeof args.provider === 'string' ? args.provider : undefined;
      if (provider && services.clients.chat.get(provider)?.spec.files) add(provider, UPLOAD_REQUESTS);
    } else if (f.name === 'deleteChatDocument') {
      // Which provider keeps it is known once the document is read: at most one delete, somewhere.
      add(undefined, 1);
    } else if (f.name === 'createEmbeddings') {
      const spec = services.clients.chat.get(input?.provider ?? '')?.spec.embeddings;
      const model =
        spec?.models.find((m) => m.id === input?.model || m.upstreamModel === input?.model) ??
        spec?.raw?.(input?.model ?? '');
      add(input?.provider, Math.ceil((input?.input?.length ?? 0) / (model?.maxInputs ?? 1)));
    } else if (f.name === 'generateImage') {
      add(input?.provider, input?.n ?? 1);
    } else {
      const turns = input?.graphTools?.length ? services.config.graphTools.maxSteps : 1;
      for (const t of [input?.provider, ...(input?.fallbacks ?? []).map((fb) => fb.provider)].flatMap(targets))
        add(t, turns);
      // A document's text not in the cache is read from its provider once.
      if (input?.documents?.length) add(undefined, input.documents.length);
      if (input?.graphTools?.length) addGraphTools(input.graphTools, services, add);
    }
  }
  return out;
});

/** CHAT_GRAPH_TOOL_MAX_CALLS calls of the costliest of the named operations, per upstream. */
function addGraphTools(
  names: readonly string[],
  services: GatewayServices,
  add: (upstream: string, n: number) => void,
): void {
  const { estimates } = services.trusted;
  const costliest: Record<string, number> = {};
  for (const name of names) {
    for (const [upstream, n] of Object.entries(estimates.get(name) ?? {}))
      costliest[upstream] = Math.max(costliest[upstream] ?? 0, n);
  }
  for (const [upstream, n] of Object.entries(costliest)) add(upstream, n * services.config.graphTools.maxCalls);
}
