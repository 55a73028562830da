import {
  getNamedType,
  GraphQLNonNull,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { SCALARS, type JsonSchema } from './variablesSchema.js';

/**
 * The JSON Schema of an operation's `data`, from its selection and the schema: one property per response key (an
 * alias or the field's name), required unless `@include`/`@skip` or a fragment on a narrower type may leave it out;
 * nullable where the schema's type is; enums with every value an answer may carry (UNKNOWN_FUTURE_VALUE included).
 * GraphQL's null propagation keeps a non-null field non-null even in an answer with errors, so an answer of the
 * operation always conforms, partial or not.
 */
export function dataSchema(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): JsonSchema {
  const root = schema.getRootType(operation.operation);
  if (!root) return { type: 'object' };
  return selectionSchema(schema, document, root, [operation.selectionSet]);
}

/** One response key's fields (several when the selection names it more than once) and whether it is always there. */
interface Collected {
  fields: FieldNode[];
  /** The type the first of them is selected on (the parent, or a fragment's narrower type). */
  on: GraphQLCompositeType;
  always: boolean;
}

function selectionSchema(
  schema: GraphQLSchema,
  document: DocumentNode,
  parent: GraphQLCompositeType,
  sets: readonly SelectionSetNode[],
): JsonSchema {
  const collected = new Map<string, Collected>();
  for (const set of sets) collectFields(schema, document, parent, parent, set, true, collected, new Set());
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, { fields, on, always }] of collected) {
    const name = fields[0].name.value;
    if (name === '__typename')
      properties[key] = isObjectType(parent) ? { type: 'string', const: parent.name } : { type: 'string' };
    else {
      const definition = 'getFields' in on ? on.getFields()[name] : undefined;
      if (!definition) continue; // validation has refused an unknown field
      const subSets = fields.flatMap((f) => (f.selectionSet ? [f.selectionSet] : []));
      const property = typeSchema(schema, document, definition.type, subSets);
      properties[key] = definition.description ? { ...property, description: definition.description } : property;
    }
    if (always) required.push(key);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function typeSchema(
  schema: GraphQLSchema,
  document: DocumentNode,
  type: GraphQLOutputType,
  sets: readonly SelectionSetNode[],
): JsonSchema {
  if (!isNonNullType(type)) return nullable(typeSchema(schema, document, new GraphQLNonNull(type), sets));
  const inner = type.ofType;
  if (isListType(inner)) return { type: 'array', items: typeSchema(schema, document, inner.ofType, sets) };
  const named = getNamedType(inner);
  if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((v) => v.name) };
  if (isScalarType(named)) return { ...SCALARS[named.name] };
  return selectionSchema(schema, document, named, sets);
}

/** `schema` or null. */
function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.enum)) return { ...schema, type: ['string', 'null'], enum: [...schema.enum, null] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * graphql-js's field collection, keeping whether each key is certain to be in the answer: `parent` is the type the
 * answer's object has, `scope` the type the fields of `set` are selected on (a fragment's type condition).
 */
function collectFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  parent: GraphQLCompositeType,
  scope: GraphQLCompositeType,
  set: SelectionSetNode,
  always: boolean,
  into: Map<string, Collected>,
  seen: Set<string>,
): void {
  for (const selection of set.selections) {
    const certain = always && !selection.directives?.some((d) => d.name.value === 'include' || d.name.value === 'skip');
    if (selection.kind === Kind.FIELD) {
      const key = (selection.alias ?? selection.name).value;
      const entry = into.get(key);
      if (entry) {
        entry.fields.push(selection);
        entry.always ||= certain;
      } else into.set(key, { fields: [selection], on: scope, always: certain });
      continue;
    }
    let fragmentSet: SelectionSetNode;
    let condition: string | undefined;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      fragmentSet = selection.selectionSet;
      condition = selection.typeCondition?.name.value;
    } else {
      if (seen.has(selection.name.value)) continue;
      seen.add(selection.name.value);
      const fragment = document.definitions.find(
        (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
      );
      if (fragment?.kind !== Kind.FRAGMENT_DEFINITION) continue;
      fragmentSet = fragment.selectionSet;
      condition = fragment.typeCondition.name.value;
    }
    // A fragment on the parent's own type (or one the parent always is) applies to every answer; one on a narrower
    // type only to some, so its fields may be missing.
    const conditionType = condition ? schema.getType(condition) : undefined;
    const applies =
      !conditionType ||
      conditionType === parent ||
      (isObjectType(parent) && isAbstractType(conditionType) && schema.isSubType(conditionType, parent));
    const fragmentScope = conditionType && isCompositeType(conditionType) ? conditionType : scope;
    collectFields(schema, document, parent, fragmentScope, fragmentSet, certain && applies, into, seen);
  }
}
