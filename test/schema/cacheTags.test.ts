import { composeServices as composeWithApollo } from '@apollo/composition';
import { composeServices as composeWithGuild } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { subgraphSdl } from '../../src/schema/build.js';

const service = (sdl: string) => [{ name: 'gateway', url: 'http://127.0.0.1:4000/graphql', typeDefs: parse(sdl) }];

describe('@cacheTag in the subgraph SDL (SubgraphOptions.cacheTags, set by ROUTER_INVALIDATION_URLS)', () => {
  it("composes with Apollo's composer into the supergraph's cacheTag spec, under a type prefix too", async () => {
    for (const typePrefix of [undefined, 'Ops']) {
      const sdl = await subgraphSdl(undefined, { cacheTags: true, typePrefix });
      const result = composeWithApollo(service(sdl));
      expect(result.errors).toBeUndefined();
      const supergraph = result.supergraphSdl!;
      expect(supergraph).toContain('@link(url: "https://specs.apollo.dev/cacheTag/v0.1", for: EXECUTION)');
      for (const format of [
        'service-health-{$key.id}',
        'service-health-issue-{$key.id}',
        'service-update-message-{$key.id}',
        'title-{$key.imdbId}',
        'service-announcement',
      ])
        expect(supergraph).toContain(`name: "federation__cacheTag", args: {format: "${format}"}`);
    }
  });

  it("is off by default: Federation 2.9, which the Guild's composer (Hive Gateway) reads, and 2.12 it does not", async () => {
    const plain = await subgraphSdl();
    expect(plain).not.toContain('@cacheTag');
    expect(plain).toContain('https://specs.apollo.dev/federation/v2.9');
    expect(composeWithGuild(service(plain)).errors).toBeUndefined();
    const tagged = await subgraphSdl(undefined, { cacheTags: true });
    expect(composeWithGuild(service(tagged)).errors?.map((e) => e.message)).toEqual([
      '[gateway] Invalid version v2.12 for the federation feature in @link directive on schema',
    ]);
  });
});
