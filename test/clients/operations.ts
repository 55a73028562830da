import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

/** What a frontend asks, written once for both client libraries. */
export const SERVICE_HEALTH = `query ServiceHealth {
  admin { serviceAnnouncement {
    healthOverviews(first: 3, orderBy: [{ field: SERVICE, direction: ASC }]) { nodes { id service status issues(first: 2) { nodes { id title } } } }
  } }
}`;
export const TITLE = `query Title($id: ID!) { title(imdbId: $id) { imdbId title year runtimeMinutes } }`;
export const COMPLETE = `mutation Complete($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }`;
export const STREAM = `subscription Stream($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) { delta { content } finishReason usage { totalTokens } }
}`;
export const chatInput = (provider: string, model: string) => ({
  provider,
  model,
  messages: [{ role: 'USER', content: `Explain gateways, ${provider}.` }],
});

export interface StreamChunk {
  delta: { content: string | null };
  finishReason: string | null;
  usage: { totalTokens: number } | null;
}

/** One gateway on the sandbox per client test file; the request record is cleared before each test. */
export function useClientGateway(): { readonly t: TestGateway } {
  let t: TestGateway | undefined;
  beforeAll(async () => {
    t = await startTestGateway({}, { chatTokenDelayMs: 1 });
  });
  afterAll(() => t?.close());
  beforeEach(() => t!.clearUpstreamRequests());
  return {
    get t() {
      return t!;
    },
  };
}

/** The expected upstream traffic of SERVICE_HEALTH: one Graph request (and the sandbox app token, once). */
export const healthRequests = (t: TestGateway) =>
  t.upstreamRequests('graph').filter((r) => r.url.includes('healthOverviews'));
