/** The operations every scenario sends, written once so the gateway, the naive baseline and the peer get the same work. */

export const SERVICE_IDS = [
  'Exchange',
  'OrgLiveID',
  'OSDPPlatform',
  'microsoftteams',
  'SharePoint',
  'OneDriveForBusiness',
  'Intune',
  'O365Client',
  'PowerBIcom',
  'DynamicsCRM',
] as const;

export const TITLE_IDS = ['tt0078346', 'tt0133093', 'tt0372784'] as const;

export interface Operation {
  name: string;
  /** Our graph's document (gateway and naive baseline share the schema). */
  query: string;
  /** Distinct upstream resources the operation needs: the request-count goal. */
  distinctKeys: number;
  /** How the goal reads in results.json. */
  goal: string;
  /** True when the goal is HTTP requests == distinctKeys; false when it is 1 request (nested expand / one batch). */
  oneRequest: boolean;
}

/** Admin → ServiceHealth → Issue: one `$expand` can fetch it all. */
export const nestedQuery = `query Nested {
  admin { serviceAnnouncement { healthOverviews(first: 10) { nodes { id service status
    issues(first: 5) { nodes { id title status classification startDateTime } } } } } }
}`;

/** 20 aliases over 10 distinct services, selections differing per alias (the batch must union them). */
export const aliasedHealthQuery = `query Aliased {
  admin { serviceAnnouncement {
${Array.from({ length: 20 }, (_, i) => `    h${i}: healthOverview(id: "${SERVICE_IDS[i % 10]}") { id ${i < 10 ? 'service' : 'status'} }`).join('\n')}
  } }
}`;

/** 10 aliases over 3 title ids. */
export const aliasedTitlesQuery = `query Titles {
${Array.from({ length: 10 }, (_, i) => `  t${i}: title(imdbId: "${TITLE_IDS[i % 3]}") { imdbId title ${i % 2 ? 'year' : 'runtimeMinutes'} }`).join('\n')}
}`;

/** A search page whose items need fields only the by-id lookup has. */
export const searchQuery = `query Search {
  searchTitles(query: "batman") { totalResults items { imdbId title year plot imdbRating } }
}`;

export const requestOperations: Operation[] = [
  { name: 'nested Admin→ServiceHealth→Issue', query: nestedQuery, distinctKeys: 1, goal: '== 1', oneRequest: true },
  {
    name: '20 aliased healthOverview (10 ids)',
    query: aliasedHealthQuery,
    distinctKeys: 10,
    goal: '== 1 ($batch)',
    oneRequest: true,
  },
  { name: '10 aliased title (3 ids)', query: aliasedTitlesQuery, distinctKeys: 3, goal: '== 3', oneRequest: false },
  {
    name: 'search + details (1 page, 10 items)',
    query: searchQuery,
    distinctKeys: 11,
    goal: '== 11',
    oneRequest: false,
  },
];

/** One-upstream operations for throughput. */
export const singleHealthQuery = `query One { admin { serviceAnnouncement { healthOverview(id: "Exchange") { id service status } } } }`;
export const singleTitleQuery = `query OneTitle { title(imdbId: "tt0133093") { imdbId title year runtimeMinutes genres imdbRating } }`;
/** What the gateway sends upstream for them (checked against the record), for the direct-REST baseline. */
export const singleHealthRest =
  '/graph/v1.0/admin/serviceAnnouncement/healthOverviews/Exchange?$select=id,service,status';
export const singleTitleRest = '/omdb/?apikey=sandbox&i=tt0133093';

/**
 * The same two lookups by variable, for 16 ids sent in turn (no two of 10 concurrent requests alike, so the gateway's
 * in-flight sharing of identical upstream requests has nothing to share), and the upstream request of each id.
 */
export const healthByIdQuery = `query OneById($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { id service status } } } }`;
export const titleByIdQuery = `query OneTitleById($imdbId: ID!) { title(imdbId: $imdbId) { imdbId title year runtimeMinutes genres imdbRating } }`;
export const TURN_HEALTH_IDS = [
  'Exchange',
  'OrgLiveID',
  'OSDPPlatform',
  'microsoftteams',
  'SharePoint',
  'OneDriveForBusiness',
  'Intune',
  'O365Client',
  'PowerBIcom',
  'DynamicsCRM',
  'MicrosoftFlow',
  'PowerApps',
  'Yammer',
  'Lync',
  'MicrosoftDefenderATP',
  'Planner',
];
export const TURN_TITLE_IDS = [
  'tt0133093',
  'tt0234215',
  'tt0242653',
  'tt0372784',
  'tt0468569',
  'tt1345836',
  'tt0096895',
  'tt0103776',
  'tt0112462',
  'tt0118688',
  'tt1877830',
  'tt2975590',
  'tt0106364',
  'tt4116284',
  'tt0348150',
  'tt0770828',
];
/** The lookups `npm run bench:profile` and `bench:alloc` load the gateway with (`-turn`: by variable, ids in turn). */
export const PROFILED_QUERIES: Record<string, { query: string; turns?: Array<Record<string, unknown>> }> = {
  health: { query: singleHealthQuery },
  title: { query: singleTitleQuery },
  'health-turn': { query: healthByIdQuery, turns: TURN_HEALTH_IDS.map((id) => ({ id })) },
  'title-turn': { query: titleByIdQuery, turns: TURN_TITLE_IDS.map((imdbId) => ({ imdbId })) },
  // One whole chat completion: validation, the model offer, the provider call and the mapping of its answer.
  chat: {
    query:
      'mutation { createChatCompletion(input: { provider: "glm", model: "glm-4-flash", maxTokens: 16, messages: [{ role: USER, content: "Say hello." }] }) { content usage { totalTokens } } }',
  },
};
/**
 * The tool calls `bench:compare --query mcp-health-turn|mcp-title-turn` loads `/mcp` with: one stateless JSON-RPC
 * `tools/call` per request (the trusted operation, arguments in turn), as an agent platform sends them.
 */
export const PROFILED_TOOL_CALLS: Record<
  string,
  { tool: string; warmup: string; turns: Array<Record<string, unknown>> }
> = {
  'mcp-health-turn': { tool: 'ServiceHealth', warmup: 'health-turn', turns: TURN_HEALTH_IDS.map((id) => ({ id })) },
  'mcp-title-turn': { tool: 'TitleLookup', warmup: 'title-turn', turns: TURN_TITLE_IDS.map((imdbId) => ({ imdbId })) },
};
export const healthRestFor = (id: string) =>
  `/graph/v1.0/admin/serviceAnnouncement/healthOverviews/${id}?$select=id,service,status`;
export const titleRestFor = (id: string) => `/omdb/?apikey=sandbox&i=${id}`;

/** The chat input streamed in the streaming scenario (glm: no client-side limiter by default). */
export const chatInput = (maxTokens: number) => ({
  provider: 'glm',
  model: 'glm-4-flash',
  maxTokens,
  messages: [{ role: 'USER', content: 'Tell me a story about a gateway.' }],
});
export const chatSubscription = `subscription Stream($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) { id index delta { content } finishReason usage { completionTokens } }
}`;
/** The same request in the provider's own wire format. */
export const chatUpstreamBody = (maxTokens: number) => ({
  model: 'glm-4-flash',
  stream: true,
  max_tokens: maxTokens,
  messages: [{ role: 'user', content: 'Tell me a story about a gateway.' }],
});

/**
 * The sandbox identity platform's client-credentials request for a Graph application token (POST it), as the
 * gateway's own login sends it: the floor, naive Apollo and the direct baseline all present such a token.
 */
export const sandboxTokenRequest = (origin: string) => ({
  url: `${origin}/login/sandbox/oauth2/v2.0/token`,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: 'sandbox',
    client_secret: 'sandbox',
    scope: 'https://graph.microsoft.com/.default',
  }).toString(),
});
