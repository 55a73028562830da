import { GatewayError, badInput } from '../../errors/codes.js';
import type { ChatCompletionInput } from '../../generated/types.js';
import type { ChatTarget } from '../../config/env.js';
import type { ChatClient } from '../../upstreams/chat/client.js';
import { preflight, type CountedDocument } from './contextWindow.js';
import { validateCompletion, type ValidCompletion } from './validate.js';

/** Most targets one completion may name, fallbacks and routes expanded: each is a possible upstream request. */
export const MAX_TARGETS = 6;

const ROUTE = 'route:';

/** `provider: "route:<name>"` → the route's targets; with a route, `model` says nothing (give "auto"). */
function expand(
  provider: string,
  model: string,
  routes: Readonly<Record<string, ChatTarget[]>>,
  at: string,
): ChatTarget[] {
  if (!provider.startsWith(ROUTE)) return [{ provider, model }];
  const name = provider.slice(ROUTE.length);
  const route = routes[name];
  if (!route) {
    const known = Object.keys(routes);
    throw badInput(
      `Unknown chat route ${JSON.stringify(name)}; ${known.length ? `CHAT_ROUTES defines ${known.map((r) => ROUTE + r).join(', ')}` : 'CHAT_ROUTES defines none'}.`,
      `${at}.provider`,
    );
  }
  if (model !== 'auto' && model !== '' && model !== name) {
    throw badInput(
      `model ${JSON.stringify(model)} with route ${name}: the route picks the models (${route.map((t) => `${t.provider}/${t.model}`).join(', ')}); give model "auto".`,
      `${at}.model`,
    );
  }
  return route;
}

/**
 * Every target of a completion in the order they are tried (the provider or route, then `fallbacks`), each checked
 * as if it were the only one, context window included (with the tokens of the `documents` the prompt will hold): a
 * request that one of them would refuse is refused before anything is sent, so a fallback never turns a caller's
 * mistake into a second upstream call.
 */
export async function completionTargets(
  input: ChatCompletionInput,
  clients: ReadonlyMap<string, ChatClient>,
  routes: Readonly<Record<string, ChatTarget[]>>,
  documents: readonly CountedDocument[] = [],
): Promise<ValidCompletion[]> {
  const listed: Array<ChatTarget & { at: string }> = [
    ...expand(input.provider, input.model, routes, 'input').map((t) => ({ ...t, at: 'input' })),
    ...(input.fallbacks ?? []).flatMap((f, i) =>
      expand(f.provider, f.model, routes, `input.fallbacks[${i}]`).map((t) => ({ ...t, at: `input.fallbacks[${i}]` })),
    ),
  ];
  if (listed.length > MAX_TARGETS) {
    throw badInput(
      `This completion names ${listed.length} targets (routes and fallbacks expanded); at most ${MAX_TARGETS} are tried. Shorten fallbacks.`,
      'input.fallbacks',
    );
  }
  // What the replicas learned of these models decides what is sent (models/learned.ts).
  await Promise.all(listed.map(({ provider, model }) => clients.get(provider)?.models.recall(model)));
  const targets = listed.map(({ provider, model, at }) => {
    try {
      return validateCompletion({ ...input, provider, model }, clients);
    } catch (error) {
      if (error instanceof GatewayError && at !== 'input') {
        throw badInput(`${at} (${provider}/${model}): ${error.message}`, at);
      }
      throw error;
    }
  });
  for (const t of targets) await preflight(t.client, t.model, t.request, documents);
  return targets;
}
