import {
  getOperationAST,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { ErrorReason } from '../errors/codes.js';
import type { KnownDocuments } from './operation.js';

/** What decides whether a document may run, given once for every path that parses one (the pipeline's and Apollo's). */
export interface DocumentSettings {
  /** The operation limits as validation rules (documentLimits.ts). */
  limitRules: readonly ValidationRule[];
  /** GATEWAY_MAX_TOKENS: the lexer stops past it. */
  maxTokens: number;
  /** INTROSPECTION: without it, introspection is refused and "Did you mean …?" suggestions are hidden. */
  introspection: boolean;
}

/** Apollo's key/value document store, as its `documentStore` option takes one. */
interface KeyValueStore<V> {
  get(key: string): Promise<V | undefined>;
  set(key: string, value: V): Promise<void>;
  delete(key: string): Promise<boolean | void>;
}

/**
 * The parsed and validated documents of this gateway: one set of validation settings and one cache, by query text,
 * for every transport (a chat UI subscribes with the same document again and again, and parsing plus the limit rules
 * would otherwise sit before every first token). Apollo Server, where it still parses (GET, APQ, batches), keeps its
 * documents in the same cache under its own keys, so one bound holds for both.
 */
export class DocumentCache implements KnownDocuments {
  readonly limitRules: readonly ValidationRule[];
  readonly parseOptions: ParseOptions;
  /** Whether "Did you mean …?" suggestions may be shown (wherever introspection is). */
  readonly suggestions: boolean;
  private readonly rules: readonly ValidationRule[];
  private readonly cache = new LRUCache<string, DocumentNode | GraphQLError[]>({
    max: 1000,
    maxSize: 50 * 1024 * 1024,
    sizeCalculation: (_v, key) => key.length + 1,
  });

  constructor(
    private readonly schema: GraphQLSchema,
    settings: DocumentSettings,
  ) {
    this.limitRules = settings.limitRules;
    this.parseOptions = { maxTokens: settings.maxTokens };
    this.suggestions = settings.introspection;
    this.rules = [
      ...specifiedRules,
      ...settings.limitRules,
      ...(settings.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
    ];
  }

  /** The parsed and validated document of a query text, or its request errors (both kept by text). */
  checked(query: string): DocumentNode | GraphQLError[] {
    // A text in Apollo's key space is no GraphQL (U+0000 is not a source character): it neither reads nor overwrites
    // the document Apollo keeps under it, and fails to parse as itself.
    const apolloKey = query.charCodeAt(0) === 0;
    const cached = apolloKey ? undefined : this.cache.get(query);
    if (cached) return cached;
    let result: DocumentNode | GraphQLError[];
    try {
      const document = parse(query, this.parseOptions);
      const invalid = validate(this.schema, document, this.rules);
      result = invalid.length
        ? invalid.map((e) =>
            e.extensions.limit ? e : requestError(this.withoutSuggestions(e), ErrorReason.GraphqlValidationFailed),
          )
        : document;
    } catch (error) {
      result = [requestError(error as GraphQLError, ErrorReason.GraphqlParseFailed)];
    }
    if (!apolloKey) this.cache.set(query, result);
    return result;
  }

  /** Whether `query` is cached as a valid document; neither parses nor counts as a use. */
  valid(query: string): boolean {
    const cached = query.charCodeAt(0) === 0 ? undefined : this.cache.peek(query);
    return cached !== undefined && !Array.isArray(cached);
  }

  /** The same cache as Apollo's document store, under keys no query text reaches (U+0000, a prefix, the query's SHA-256). */
  keyValueStore(): KeyValueStore<DocumentNode> {
    const key = (k: string) => `\u0000apollo:${k}`;
    return {
      get: async (k) => {
        const value = this.cache.get(key(k));
        return Array.isArray(value) ? undefined : value;
      },
      set: async (k, value) => void this.cache.set(key(k), value),
      delete: async (k) => this.cache.delete(key(k)),
    };
  }

  /** "Did you mean …?" reveals the schema; hidden wherever introspection is (as Apollo does for HTTP). */
  private withoutSuggestions(error: GraphQLError): GraphQLError {
    if (this.suggestions) return error;
    const message = error.message.replace(/ ?Did you mean(.+?)\?$/, '');
    return message === error.message
      ? error
      : new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions });
  }
}

/** A request error with the reason Apollo gives it (BAD_USER_INPUT for the client, `reason` for tools). */
export function requestError(error: GraphQLError, reason: ErrorReason): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { code: reason },
  });
}

/**
 * The operation of a cached document a request names (`getOperationAST`), found once per document and name: a
 * document of one operation, the usual case, is looked up without walking its definitions per request. Undefined when
 * none or several match, as `getOperationAST` answers.
 */
export function operationOf(
  document: DocumentNode,
  operationName: string | null | undefined,
): OperationDefinitionNode | undefined {
  let known = operations.get(document);
  if (!known) operations.set(document, (known = { unnamed: getOperationAST(document) ?? undefined, named: undefined }));
  // The one operation answers for no name and for its own name.
  if (operationName == null || known.unnamed?.name?.value === operationName) return known.unnamed;
  const named = (known.named ??= new Map());
  let found = named.get(operationName);
  if (found === undefined) {
    // Bounded by the document's operations: a name it lacks is not kept.
    const operation = getOperationAST(document, operationName) ?? undefined;
    if (!operation) return undefined;
    named.set(operationName, (found = operation));
  }
  return found;
}

/** By cached document (goes with it): its one operation, and those looked up by name in a document of several. */
const operations = new WeakMap<
  DocumentNode,
  { unnamed: OperationDefinitionNode | undefined; named: Map<string, OperationDefinitionNode> | undefined }
>();
