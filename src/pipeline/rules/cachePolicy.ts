import {
  getNamedType,
  isCompositeType,
  Kind,
  type DirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { RouterSharing } from '../../domains/domain.js';
import { domainOf } from '../../schema/domains.js';

/** Who may keep an answer, as `@cacheControl(scope:)` says (schema/gateway.graphql). */
export enum CacheScope {
  Public = 'PUBLIC',
  Private = 'PRIVATE',
}

/** An operation's cache policy, from the `@cacheControl` hints of the fields it selects. */
export interface CachePolicy {
  /** Seconds the answer stays fresh: the smallest hint of the selected fields; 0 means not cacheable. */
  maxAge: number;
  scope: CacheScope;
  /**
   * The domains (`enterprise`, `titles`, `chat`) whose fields it selects: a cached answer is tagged with them, and a
   * mutation drops the answers of the domains it writes.
   */
  domains: readonly string[];
  /**
   * How far a trusted router may share the answer between its clients: the narrowest sharing of the domains it
   * selects (their `routerSharing`); undefined when one of them is not to be shared.
   */
  routerSharing: RouterSharing | undefined;
}

interface Hint {
  maxAge?: number;
  scope?: CacheScope;
  inheritMaxAge?: boolean;
}

/** The tag of a field no domain defines (the gateway's own, `_entities`): any domain's fields may be behind it. */
export const GATEWAY_TAG = 'gateway';

/** What the selections of one part of an operation add up to; parts combine into a {@link CachePolicy}. */
class Tally {
  maxAge = Infinity;
  scope = CacheScope.Public;
  readonly domains = new Set<string>();
  /** The domains whose data is selected: fields of no domain (`_entities`, `__typename`) hold no data of their own. */
  readonly owners = new Set<string>();

  apply(hint: Hint | undefined): void {
    if (hint?.scope === CacheScope.Private) this.scope = CacheScope.Private;
    if (hint?.maxAge !== undefined) this.maxAge = Math.min(this.maxAge, hint.maxAge);
  }

  add(other: Tally): void {
    this.maxAge = Math.min(this.maxAge, other.maxAge);
    if (other.scope === CacheScope.Private) this.scope = CacheScope.Private;
    for (const d of other.domains) this.domains.add(d);
    for (const o of other.owners) this.owners.add(o);
  }
}

/** A policy with what its `_entities` selections contribute per entity type, to narrow it to the types answered. */
interface Computed {
  policy: CachePolicy;
  query: boolean;
  /** The operation without its entity-type fragments. */
  base: Tally;
  /** Each entity type an `_entities` fragment names, with what selecting it adds. */
  entities: ReadonlyMap<string, Tally>;
  /** The policies narrowed to a set of entity types, by their sorted names. */
  narrowed: Map<string, CachePolicy>;
}

/**
 * The policy of an operation, computed once per document (documents are cached by text, so a known document costs a
 * WeakMap lookup). Execution is compiled (graphql-jit) and Apollo's cache-control plugin, which hooks every field
 * resolve, is off: the hints are read statically from the document and the schema, as Apollo's rules define them.
 * A field's own hint wins over its type's; an object field (or a root field) without a `maxAge` makes the answer
 * uncacheable unless it says `inheritMaxAge`; `_entities` takes the hints of the entity types its fragments name,
 * and {@link CachePolicies.forEntities} narrows that to the types a call's representations name: a router's fetch
 * names every type it may resolve, and a call of titles alone keeps a title's day even when its document also names
 * ServiceHealth.
 */
export class CachePolicies {
  private readonly computed = new WeakMap<OperationDefinitionNode, Computed>();
  private readonly byPolicy = new WeakMap<CachePolicy, Computed>();

  constructor(
    private readonly schema: GraphQLSchema,
    /** Each domain's `routerSharing`; a domain without one is never shared by a router. */
    private readonly sharing: Readonly<Record<string, RouterSharing | undefined>> = {},
  ) {}

  of(document: DocumentNode, operation: OperationDefinitionNode): CachePolicy {
    let computed = this.computed.get(operation);
    if (!computed) {
      computed = this.compute(document, operation);
      this.computed.set(operation, computed);
      this.byPolicy.set(computed.policy, computed);
    }
    return computed.policy;
  }

  /**
   * `policy` (from {@link of}) for an answer whose `_entities` resolve only `typenames`; the policy itself when its
   * operation has no entity fragments. An unknown name changes nothing: it is refused before it is resolved.
   */
  forEntities(policy: CachePolicy, typenames: ReadonlySet<string>): CachePolicy {
    const computed = this.byPolicy.get(policy);
    if (!computed || computed.entities.size === 0) return policy;
    const present = [...computed.entities.keys()].filter((t) => typenames.has(t)).sort();
    if (present.length === computed.entities.size) return policy;
    const key = present.join(',');
    let narrowed = computed.narrowed.get(key);
    if (!narrowed) {
      const tally = new Tally();
      tally.add(computed.base);
      for (const t of present) tally.add(computed.entities.get(t)!);
      narrowed = this.policyOf(tally, computed.query);
      // Bounded by the subsets of the few entity types one document names.
      if (computed.narrowed.size < 64) computed.narrowed.set(key, narrowed);
    }
    return narrowed;
  }

  private compute(document: DocumentNode, operation: OperationDefinitionNode): Computed {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const root = this.schema.getRootType(operation.operation);
    const base = new Tally();
    const entities = new Map<string, Tally>();
    const seen = new Set<string>();

    const walk = (selectionSet: SelectionSetNode, parent: GraphQLCompositeType, tally: Tally, entityOf?: true) => {
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          const name = selection.name.value;
          if (name === '__typename') continue;
          const field: GraphQLField<unknown, unknown> | undefined =
            'getFields' in parent ? parent.getFields()[name] : undefined;
          if (!field) {
            tally.maxAge = 0; // introspection (__schema, __type) is not cached
            continue;
          }
          const type = getNamedType(field.type);
          const isRoot = parent === root;
          const owner = domainOf(this.schema, isRoot ? `${parent.name}.${name}` : parent.name);
          if (owner) tally.owners.add(owner);
          tally.domains.add(owner ?? GATEWAY_TAG);
          const hint = hintOf(field.astNode?.directives) ?? (isCompositeType(type) ? typeHint(type) : undefined);
          tally.apply(hint);
          const isEntities = isRoot && name === '_entities';
          if (hint?.maxAge === undefined && !hint?.inheritMaxAge && !isEntities && (isCompositeType(type) || isRoot))
            tally.maxAge = 0;
          if (selection.selectionSet && isCompositeType(type))
            walk(selection.selectionSet, type, tally, isEntities ? true : undefined);
          continue;
        }
        const condition =
          selection.kind === Kind.INLINE_FRAGMENT
            ? selection.typeCondition?.name.value
            : fragments.get(selection.name.value)?.typeCondition.name.value;
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        if (!fragment) continue;
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          if (seen.has(selection.name.value)) continue;
          seen.add(selection.name.value);
        }
        const type = condition ? this.schema.getType(condition) : undefined;
        if (!type || !isCompositeType(type) || type === parent) {
          walk(fragment.selectionSet, parent, tally, entityOf);
          continue;
        }
        // Directly under `_entities`: what this entity type adds counts only when a representation names it.
        let into = tally;
        if (entityOf) {
          into = entities.get(type.name) ?? new Tally();
          entities.set(type.name, into);
        }
        into.apply(typeHint(type)); // an entity type's own hint applies there (how `_entities` gets its policy)
        walk(fragment.selectionSet, type, into);
      }
    };
    if (root) walk(operation.selectionSet, root, base);
    const query = operation.operation === 'query';
    const all = new Tally();
    all.add(base);
    for (const t of entities.values()) all.add(t);
    return { policy: this.policyOf(all, query), query, base, entities, narrowed: new Map() };
  }

  private policyOf(tally: Tally, query: boolean): CachePolicy {
    return {
      maxAge: !query || tally.maxAge === Infinity ? 0 : tally.maxAge,
      scope: tally.scope,
      domains: [...tally.domains].sort(),
      routerSharing: this.routerSharing(tally.owners),
    };
  }

  private routerSharing(owners: ReadonlySet<string>): RouterSharing | undefined {
    let narrowest: RouterSharing | undefined = 'always';
    for (const owner of owners) {
      const sharing = this.sharing[owner];
      if (sharing === undefined) return undefined;
      if (sharing === 'application') narrowest = 'application';
    }
    return owners.size ? narrowest : undefined;
  }
}

function typeHint(type: GraphQLNamedType): Hint | undefined {
  return hintOf(type.astNode?.directives) ?? type.extensionASTNodes.map((n) => hintOf(n.directives)).find(Boolean);
}

function hintOf(directives: readonly DirectiveNode[] | undefined): Hint | undefined {
  const directive = directives?.find((d) => d.name.value === 'cacheControl');
  if (!directive) return undefined;
  const hint: Hint = {};
  for (const arg of directive.arguments ?? []) {
    const { value } = arg;
    if (arg.name.value === 'maxAge' && value.kind === Kind.INT) hint.maxAge = Number(value.value);
    else if (arg.name.value === 'scope' && value.kind === Kind.ENUM) hint.scope = value.value as CacheScope;
    else if (arg.name.value === 'inheritMaxAge' && value.kind === Kind.BOOLEAN) hint.inheritMaxAge = value.value;
  }
  return hint;
}
