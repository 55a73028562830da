/** Operation limits checked before execution; each refusal is QUERY_TOO_COMPLEX naming the limit and the value. */
export interface OperationLimits {
  /** Characters of the document. @default 50000 */
  maxDocumentBytes: number;
  /** Lexer tokens (graphql-armor's default). @default 1000 */
  maxTokens: number;
  /** Field nesting. graphql-armor's 6 is too shallow for Admin→…→Issue→posts→description. @default 12 */
  maxDepth: number;
  /**
   * Aliases per operation. Above graphql-armor's 15 because 20 aliased lookups is a normal dashboard; alias bombs are
   * stopped by the field and upstream-request limits too. @default 30
   */
  maxAliases: number;
  /** Fields once fragments are expanded. @default 1000 */
  maxFields: number;
  /** Directives (graphql-armor's default). @default 50 */
  maxDirectives: number;
  /** Upstream requests one operation may cause per upstream, by the planners' estimate. @default 50 */
  maxUpstreamRequests: number;
  /** Representations of one `_entities` call. @default 1000 */
  maxEntityRepresentations: number;
}

export const DEFAULT_LIMITS: OperationLimits = {
  maxDocumentBytes: 50_000,
  maxTokens: 1000,
  maxDepth: 12,
  maxAliases: 30,
  maxFields: 1000,
  maxDirectives: 50,
  maxUpstreamRequests: 50,
  maxEntityRepresentations: 1000,
};

/** Environment variable of each limit (GATEWAY_MAX_DEPTH, …). */
export const LIMIT_VARIABLES: Record<keyof OperationLimits, string> = {
  maxDocumentBytes: 'GATEWAY_MAX_DOCUMENT_BYTES',
  maxTokens: 'GATEWAY_MAX_TOKENS',
  maxDepth: 'GATEWAY_MAX_DEPTH',
  maxAliases: 'GATEWAY_MAX_ALIASES',
  maxFields: 'GATEWAY_MAX_FIELDS',
  maxDirectives: 'GATEWAY_MAX_DIRECTIVES',
  maxUpstreamRequests: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
  maxEntityRepresentations: 'MAX_ENTITY_REPRESENTATIONS',
};
