import { GatewayError, badInput } from '../../errors/codes.js';
import type { ChatCompletionInput } from '../../generated/types.js';
import type { ChatTarget } from '../../config/env.js';
import type { ChatClient } from '../../upstreams/chat/client.js';
import { preflight, type CountedDocument } from './contextWindow.js';
import { validateCompletion, type ValidCompletion } from './validate.js';

/** Most targets one completion may name, fallbacks and routes expanded: each is a possible upstream request. */
export const MAX_TARGETS = 6;

const ROUTE = 'route:';

/** A target as listed: `at` is where the caller named it (`input`, `input.fallbacks[1]`). */
type Listed = ChatTarget & { at: string };

/**
 * `provider: "route:<name>"` → the route's targets, else the one named, each added to `listed`; with a route,
 * `model` says nothing (give "auto").
 */
function expandInto(
  listed: Listed[],
  provider: string,
  model: string,
  routes: Readonly<Record<string, ChatTarget[]>>,
  at: string,
): void {
  if (!provider.startsWith(ROUTE)) {
    listed.push({ provider, model, at });
    return;
  }
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
  for (const t of route) listed.push({ provider: t.provider, model: t.model, at });
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
  // Built in one array, and the input itself validated for a target it names as it is: a chat stream's start made
  // spread copies of every target and of the whole input (bench/PROFILE.md, "Sixteenth pass").
  const listed: Listed[] = [];
  expandInto(listed, input.provider, input.model, routes, 'input');
  const fallbacks = input.fallbacks ?? [];
  for (let i = 0; i < fallbacks.length; i++)
    expandInto(listed, fallbacks[i].provider, fallbacks[i].model, routes, `input.fallbacks[${i}]`);
  if (listed.length > MAX_TARGETS) {
    throw badInput(
      `This completion names ${listed.length} targets (routes and fallbacks expanded); at most ${MAX_TARGETS} are tried. Shorten fallbacks.`,
      'input.fallbacks',
    );
  }
  // What the replicas learned of these models decides what is sent (models/learned.ts).
  if (listed.length === 1) await clients.get(listed[0].provider)?.models.recall(listed[0].model);
  else await Promise.all(listed.map(({ provider, model }) => clients.get(provider)?.models.recall(model)));
  const targets = listed.map(({ provider, model, at }) => {
    try {
      const named = provider === input.provider && model === input.model;
      return validateCompletion(named ? input : { ...input, provider, model }, clients);
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
