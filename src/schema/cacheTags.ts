/**
 * `@cacheTag` (Apollo Federation 2.12) in the SDL a router reads, added at build time from each domain's `cacheTags`
 * when routers are told of changes (ROUTER_INVALIDATION_URLS): Apollo Router's response cache labels each cached
 * entity (and root field) with the tags the format gives, and drops them when the gateway POSTs those tags to its
 * invalidation endpoint (src/upstreams/routers/invalidation.ts). Off by default: Federation 2.12 is past what the
 * Guild's composer (Hive Gateway, `npm run supergraph`) reads (2.9), so the SDL links 2.12 only for Apollo's routers.
 * Source: https://www.apollographql.com/docs/graphos/routing/performance/caching/response-caching/invalidation
 * (read 2026-11-28).
 */
import { Kind, type ConstDirectiveNode, type DefinitionNode, type DocumentNode } from 'graphql';
import type { CacheTagFormats } from '../domains/domain.js';

/** The federation version that defines `@cacheTag`. */
const CACHE_TAG_FEDERATION = 'https://specs.apollo.dev/federation/v2.12';

function cacheTag(format: string): ConstDirectiveNode {
  return {
    kind: Kind.DIRECTIVE,
    name: { kind: Kind.NAME, value: 'cacheTag' },
    arguments: [
      { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'format' }, value: { kind: Kind.STRING, value: format } },
    ],
  };
}

/**
 * `document` (names of `schema/`, before renames) with `@cacheTag(format:)` on each type and root field `formats`
 * names, and its federation `@link` raised to 2.12 importing `@cacheTag`.
 */
export function withCacheTags(document: DocumentNode, formats: CacheTagFormats): DocumentNode {
  const definitions = document.definitions.map((d): DefinitionNode => {
    if (d.kind === Kind.SCHEMA_EXTENSION) return { ...d, directives: d.directives?.map(linkingCacheTag) };
    if (d.kind !== Kind.OBJECT_TYPE_DEFINITION && d.kind !== Kind.OBJECT_TYPE_EXTENSION) return d;
    const own = formats[d.name.value];
    const fields = d.fields?.map((f) => {
      const format = formats[`${d.name.value}.${f.name.value}`];
      return format ? { ...f, directives: [...(f.directives ?? []), cacheTag(format)] } : f;
    });
    return { ...d, fields, directives: own ? [...(d.directives ?? []), cacheTag(own)] : d.directives };
  });
  return { ...document, definitions };
}

/** The federation `@link` at 2.12 with `@cacheTag` imported; any other directive as it is. */
function linkingCacheTag(directive: ConstDirectiveNode): ConstDirectiveNode {
  const url = directive.arguments?.find((a) => a.name.value === 'url');
  if (
    directive.name.value !== 'link' ||
    url?.value.kind !== Kind.STRING ||
    !url.value.value.startsWith('https://specs.apollo.dev/federation/')
  )
    return directive;
  const args = directive.arguments!.map((a) => {
    if (a.name.value === 'url') return { ...a, value: { kind: Kind.STRING, value: CACHE_TAG_FEDERATION } as const };
    if (a.name.value === 'import' && a.value.kind === Kind.LIST)
      return {
        ...a,
        value: { ...a.value, values: [...a.value.values, { kind: Kind.STRING, value: '@cacheTag' } as const] },
      };
    return a;
  });
  return { ...directive, arguments: args };
}
