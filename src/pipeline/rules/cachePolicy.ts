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
}

interface Hint {
  maxAge?: number;
  scope?: CacheScope;
  inheritMaxAge?: boolean;
}

/** The tag of a field no domain defines (the gateway's own, `_entities`): any domain's fields may be behind it. */
export const GATEWAY_TAG = 'gateway';

/**
 * The policy of an operation, computed once per document (documents are cached by text, so a known document costs a
 * WeakMap lookup). Execution is compiled (graphql-jit) and Apollo's cache-control plugin, which hooks every field
 * resolve, is off: the hints are read statically from the document and the schema, as Apollo's rules define them.
 * A field's own hint wins over its type's; an object field (or a root field) without a `maxAge` makes the answer
 * uncacheable unless it says `inheritMaxAge`; `_entities` takes the hints of the entity types its fragments name.
 */
export class CachePolicies {
  private readonly policies = new WeakMap<OperationDefinitionNode, CachePolicy>();

  constructor(private readonly schema: GraphQLSchema) {}

  of(document: DocumentNode, operation: OperationDefinitionNode): CachePolicy {
    let policy = this.policies.get(operation);
    if (!policy) {
      policy = this.compute(document, operation);
      this.policies.set(operation, policy);
    }
    return policy;
  }

  private compute(document: DocumentNode, operation: OperationDefinitionNode): CachePolicy {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const root = this.schema.getRootType(operation.operation);
    let maxAge = Infinity;
    let scope = CacheScope.Public;
    const domains = new Set<string>();
    const seen = new Set<string>();
    const apply = (hint: Hint | undefined) => {
      if (hint?.scope === CacheScope.Private) scope = CacheScope.Private;
      if (hint?.maxAge !== undefined) maxAge = Math.min(maxAge, hint.maxAge);
    };

    const walk = (selectionSet: SelectionSetNode, parent: GraphQLCompositeType) => {
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          const name = selection.name.value;
          if (name === '__typename') continue;
          const field: GraphQLField<unknown, unknown> | undefined =
            'getFields' in parent ? parent.getFields()[name] : undefined;
          if (!field) {
            maxAge = 0; // introspection (__schema, __type) is not cached
            continue;
          }
          const type = getNamedType(field.type);
          const isRoot = parent === root;
          domains.add(domainOf(this.schema, isRoot ? `${parent.name}.${name}` : parent.name) ?? GATEWAY_TAG);
          const hint = hintOf(field.astNode?.directives) ?? (isCompositeType(type) ? typeHint(type) : undefined);
          apply(hint);
          const inherits = hint?.inheritMaxAge || (isRoot && name === '_entities');
          if (hint?.maxAge === undefined && !inherits && (isCompositeType(type) || isRoot)) maxAge = 0;
          if (selection.selectionSet && isCompositeType(type)) walk(selection.selectionSet, type);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          walk(selection.selectionSet, this.condition(selection.typeCondition?.name.value, parent, apply));
        } else {
          const fragment = fragments.get(selection.name.value);
          if (!fragment || seen.has(fragment.name.value)) continue;
          seen.add(fragment.name.value);
          walk(fragment.selectionSet, this.condition(fragment.typeCondition.name.value, parent, apply));
        }
      }
    };
    if (root) walk(operation.selectionSet, root);
    if (operation.operation !== 'query' || maxAge === Infinity) maxAge = 0;
    return { maxAge, scope, domains: [...domains].sort() };
  }

  /** The type a fragment narrows to; an entity type's own hint applies there (how `_entities` gets its policy). */
  private condition(
    name: string | undefined,
    parent: GraphQLCompositeType,
    apply: (hint: Hint | undefined) => void,
  ): GraphQLCompositeType {
    const type = name ? this.schema.getType(name) : undefined;
    if (!type || !isCompositeType(type) || type === parent) return parent;
    apply(typeHint(type));
    return type;
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
