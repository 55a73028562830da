/**
 * An OpenAPI 3.0 description of the sandbox endpoints the benchmarks use (Graph service health, OMDb by id and
 * search), for GraphQL Mesh's `@omnigraph/openapi`. OpenAPI allows one operation per path and method, so OMDb's
 * by-id lookup is described at `/omdb/` and its search at `/omdb`; the sandbox (like OMDb) serves both.
 */
export function sandboxOpenApi(origin: string): Record<string, unknown> {
  const str = { type: 'string' };
  const query = (name: string, schema: Record<string, unknown> = str, required = false) => ({
    name,
    in: 'query',
    required,
    schema,
  });
  const json = (ref: string) => ({
    description: 'OK',
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
  });
  const announcement = '/graph/v1.0/admin/serviceAnnouncement';
  return {
    openapi: '3.0.3',
    info: { title: 'Benchmark sandbox (Graph service health, OMDb)', version: '1.0.0' },
    servers: [{ url: origin }],
    paths: {
      [`${announcement}/healthOverviews`]: {
        get: {
          operationId: 'healthOverviews',
          parameters: [query('$top', { type: 'integer' })],
          responses: { 200: json('ServiceHealthCollection') },
        },
      },
      [`${announcement}/healthOverviews/{id}`]: {
        get: {
          operationId: 'healthOverview',
          parameters: [{ name: 'id', in: 'path', required: true, schema: str }],
          responses: { 200: json('ServiceHealth') },
        },
      },
      [`${announcement}/healthOverviews/{id}/issues`]: {
        get: {
          operationId: 'serviceHealthIssues',
          parameters: [{ name: 'id', in: 'path', required: true, schema: str }, query('$top', { type: 'integer' })],
          responses: { 200: json('ServiceHealthIssueCollection') },
        },
      },
      '/omdb/': {
        get: {
          operationId: 'title',
          parameters: [query('i', str, true), query('plot')],
          responses: { 200: json('OmdbTitle') },
        },
      },
      '/omdb': {
        get: {
          operationId: 'searchTitles',
          parameters: [query('s', str, true), query('page', { type: 'integer' })],
          responses: { 200: json('OmdbSearch') },
        },
      },
    },
    components: {
      schemas: {
        ServiceHealth: { type: 'object', properties: { id: str, service: str, status: str } },
        ServiceHealthCollection: {
          type: 'object',
          properties: { value: { type: 'array', items: { $ref: '#/components/schemas/ServiceHealth' } } },
        },
        ServiceHealthIssue: {
          type: 'object',
          properties: { id: str, title: str, status: str, classification: str, startDateTime: str, service: str },
        },
        ServiceHealthIssueCollection: {
          type: 'object',
          properties: { value: { type: 'array', items: { $ref: '#/components/schemas/ServiceHealthIssue' } } },
        },
        OmdbTitle: {
          type: 'object',
          properties: {
            imdbID: str,
            Title: str,
            Year: str,
            Runtime: str,
            Genre: str,
            Plot: str,
            imdbRating: str,
            Type: str,
          },
        },
        OmdbSearchItem: { type: 'object', properties: { imdbID: str, Title: str, Year: str, Type: str, Poster: str } },
        OmdbSearch: {
          type: 'object',
          properties: {
            totalResults: str,
            Response: str,
            Search: { type: 'array', items: { $ref: '#/components/schemas/OmdbSearchItem' } },
          },
        },
      },
    },
  };
}
