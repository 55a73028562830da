/**
 * Composition for the files that only need a supergraph to start a router (httpCallback, routerClients): the Guild's
 * composer in the test's own process, over the SDL the running instance serves. It imports neither the routers nor
 * Apollo's composer (test/federation/routing.ts does), and spawns nothing: `npm run supergraph` as a child process was
 * ~1.2 s of CPU per compose (Node's start and the gateway's schema imports), and test/federation/supergraph.test.ts
 * runs it end to end.
 */
import { composeServices } from '@theguild/federation-composition';
import { parse, type DocumentNode } from 'graphql';

export interface Subgraph {
  name: string;
  url: string;
  typeDefs: DocumentNode;
}

/**
 * The subgraph named `name` at `url`: its SDL as the instance there serves it from `_service { sdl }`, asked with
 * `headers` (a router's key where the instance wants one).
 */
export async function servedSubgraph(
  name: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<Subgraph> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: '{ _service { sdl } }' }),
  });
  const { data, errors } = (await res.json()) as { data?: { _service: { sdl: string } }; errors?: unknown[] };
  if (!data) throw new Error(`${url} did not serve its SDL: ${JSON.stringify(errors)}`);
  return { name, url, typeDefs: parse(data._service.sdl) };
}

/** The supergraph SDL the Guild's composer (what `npm run supergraph` uses) writes; throws on a composition error. */
export function guildSupergraph(subgraphs: readonly Subgraph[]): string {
  const result = composeServices([...subgraphs]);
  if (result.errors?.length)
    throw new Error(`guild composition failed: ${result.errors.map((e) => e.message).join('\n')}`);
  return result.supergraphSdl!;
}
