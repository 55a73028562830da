import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { exampleOperation } from '../../support/examples.js';
import { collect, wsClient } from '../../support/ws.js';
import { chatExamples } from '../../../src/domains/chat/index.js';
import { PROVIDERS, type Chunk } from '../../support/chat.js';

const COMPLETE = `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) {
    provider content
    choices { finishReason }
    usage { promptTokens completionTokens totalTokens }
    graphSteps { turn toolCallId operation arguments result errorCode }
  }
}`;

const STREAM = `subscription Stream($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) {
    delta { content reasoningContent toolCalls { index } }
    finishReason
    reasoningUsed
    usage { totalTokens reasoningTokens }
    graphStep { turn toolCallId operation arguments result errorCode }
  }
}`;

interface Step {
  turn: number;
  toolCallId: string;
  operation: string;
  arguments: string;
  result: string;
  errorCode: string | null;
}

const ASK_EXCHANGE = 'Is Exchange degraded right now? [[tool:ServiceHealth {"id":"Exchange","issues":1}]]';
const user = (content: string) => ({ role: 'USER', content });

let t: TestGateway;
beforeAll(async () => {
  // Cases ask the same operations again and count the Graph requests each one costs: no response cache.
  t = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '0' });
});
afterAll(async () => t?.close());

/** The sandbox's chat and Graph requests since the last clear (the identity platform's token request left out). */
function upstream(provider: string) {
  const chat = t.upstreamRequests(provider).filter((r) => r.url.endsWith('/chat/completions'));
  return {
    chat,
    bodies: chat.map((r) => JSON.parse(r.body)),
    graph: t.upstreamRequests('graph'),
    omdb: t.upstreamRequests('omdb'),
  };
}

async function complete(input: Record<string, unknown>, headers: Record<string, string> = {}) {
  const { body } = await t.query(COMPLETE, { input }, headers);
  return body as {
    data?: {
      createChatCompletion: {
        content: string | null;
        choices: Array<{ finishReason: string }>;
        usage: { totalTokens: number; completionTokens: number };
        graphSteps: Step[];
      };
    };
    errors?: Array<{ message: string; extensions: Record<string, unknown> }>;
  };
}

describe.each(PROVIDERS)('graphTools on $id', ({ id, toolModel }) => {
  it('answers from the live service health: 2 chat requests and 1 Graph request, the result fed back as a tool message', async () => {
    t.clearUpstreamRequests();
    const body = await complete({
      provider: id,
      model: toolModel,
      messages: [user(ASK_EXCHANGE)],
      graphTools: ['ServiceHealth'],
    });
    expect(body.errors).toBeUndefined();
    const answer = body.data!.createChatCompletion;
    expect(answer.choices[0].finishReason).toBe('STOP');
    expect(answer.content).toMatch(/\.$/);
    expect(answer.graphSteps).toHaveLength(1);
    const [step] = answer.graphSteps;
    expect(step).toMatchObject({
      turn: 1,
      operation: 'ServiceHealth',
      arguments: '{"id":"Exchange","issues":1}',
      errorCode: null,
    });
    expect(JSON.parse(step.result).data.admin.serviceAnnouncement.healthOverview).toMatchObject({
      id: 'Exchange',
      service: 'Exchange Online',
    });

    const { chat, bodies, graph } = upstream(id);
    expect(chat).toHaveLength(2);
    expect(graph).toHaveLength(1);
    expect(decodeURIComponent(graph[0].url)).toContain('/admin/serviceAnnouncement/healthOverviews/Exchange?');
    // Offered in the provider's function-tool format, with the operation's comment and variables schema.
    expect(bodies[0].tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'ServiceHealth',
          description: expect.stringMatching(/^One service's health/),
          parameters: expect.objectContaining({ required: ['id'] }),
        },
      },
    ]);
    const [assistant, tool] = bodies[1].messages.slice(-2);
    expect(assistant).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: step.toolCallId, type: 'function', function: { name: 'ServiceHealth' } }],
    });
    // Every tool model here reasons by default: the turn goes back with its reasoning, as DeepSeek and Kimi require.
    expect(assistant.reasoning_content).toEqual(expect.any(String));
    expect(assistant.reasoning_content.length).toBeGreaterThan(0);
    expect(tool).toMatchObject({ role: 'tool', tool_call_id: step.toolCallId });
    expect(tool.content).toContain('"service":"Exchange Online"');
    // Usage counts both turns.
    expect(answer.usage.totalTokens).toBeGreaterThan(0);
  });

  it('streams each step (the call, its arguments, the start of its result), then the answer, then one last chunk with usage', async () => {
    t.clearUpstreamRequests();
    const client = wsClient(t.gateway.wsUrl);
    try {
      const { results } = await collect<{ chatCompletionStream: Chunk & { graphStep: Step | null } }>(client, STREAM, {
        input: { provider: id, model: toolModel, messages: [user(ASK_EXCHANGE)], graphTools: ['ServiceHealth'] },
      });
      expect(results.every((r) => !r.errors)).toBe(true);
      const chunks = results.map((r) => r.data!.chatCompletionStream);
      const stepAt = chunks.findIndex((c) => c.graphStep);
      expect(chunks.filter((c) => c.graphStep)).toHaveLength(1);
      expect(chunks[stepAt].graphStep).toMatchObject({
        turn: 1,
        operation: 'ServiceHealth',
        arguments: '{"id":"Exchange","issues":1}',
        errorCode: null,
      });
      expect(chunks[stepAt].graphStep!.result).toContain('"service":"Exchange Online"');
      // The second turn reasons again before it answers: its reasoning deltas come first, then the content.
      const answer = chunks.slice(stepAt + 1, -1);
      const kinds = answer.map((c) => (c.delta.reasoningContent ? 'r' : c.delta.content ? 'c' : '-')).join('');
      expect(kinds).toMatch(/^r+c+$/);
      expect(answer.every((c) => !c.delta.toolCalls && !c.finishReason)).toBe(true);
      expect(chunks.at(-1)).toMatchObject({
        finishReason: 'STOP',
        reasoningUsed: true,
        usage: { totalTokens: expect.any(Number) },
      });
      // Kimi does not count reasoning tokens apart; the other three do.
      if (id !== 'moonshot') expect(chunks.at(-1)!.usage!.reasoningTokens).toBeGreaterThan(0);
      expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    } finally {
      await client.dispose();
    }
    const { chat, bodies, graph } = upstream(id);
    expect(chat).toHaveLength(2);
    expect(bodies.every((b) => b.stream === true)).toBe(true);
    expect(graph).toHaveLength(1);
    // The tool-call turn goes back with the reasoning it streamed (DeepSeek and Kimi refuse it otherwise).
    const assistant = bodies[1].messages.find((m: { role: string }) => m.role === 'assistant');
    expect(assistant.reasoning_content.length).toBeGreaterThan(0);
  });
});

describe('graphTools: several steps, bounds and refusals', () => {
  it('follows two calls across two turns: 3 chat requests, 1 Graph and 1 OMDb request', async () => {
    t.clearUpstreamRequests();
    const body = await complete({
      provider: 'deepseek',
      model: 'deepseek-flash',
      messages: [
        user(
          'Exchange health, then the film Alien. [[tool:ServiceHealth {"id":"Exchange"}]] [[tool:TitleLookup {"imdbId":"tt0078346"}]]',
        ),
      ],
      graphTools: ['ServiceHealth', 'TitleLookup'],
    });
    const answer = body.data!.createChatCompletion;
    expect(answer.graphSteps.map((s) => [s.turn, s.operation, s.errorCode])).toEqual([
      [1, 'ServiceHealth', null],
      [2, 'TitleLookup', null],
    ]);
    expect(answer.choices[0].finishReason).toBe('STOP');
    const { chat, graph, omdb } = upstream('deepseek');
    expect([chat.length, graph.length, omdb.length]).toEqual([3, 1, 1]);
  });

  it('stops a model that never stops calling tools after CHAT_GRAPH_TOOL_MAX_STEPS turns, with finish GRAPH_TOOL_LIMIT', async () => {
    t.clearUpstreamRequests();
    const body = await complete({
      provider: 'moonshot',
      model: 'moonshot-v1-8k',
      messages: [user('Check again and again. [[tool:ServiceHealthOverview {"first":3}]] [[tool-loop]]')],
      graphTools: ['ServiceHealthOverview'],
    });
    const answer = body.data!.createChatCompletion;
    expect(answer.choices[0].finishReason).toBe('GRAPH_TOOL_LIMIT');
    // 4 turns (the default bound); the calls of the first 3 ran, the 4th turn's call did not.
    expect(answer.graphSteps.map((s) => s.turn)).toEqual([1, 2, 3]);
    const { chat, graph } = upstream('moonshot');
    expect([chat.length, graph.length]).toEqual([4, 3]);
  });

  it('streamed, the bound ends the stream with one chunk per step run and a last chunk with GRAPH_TOOL_LIMIT', async () => {
    t.clearUpstreamRequests();
    const client = wsClient(t.gateway.wsUrl);
    try {
      const { results } = await collect<{ chatCompletionStream: Chunk & { graphStep: Step | null } }>(client, STREAM, {
        input: {
          provider: 'glm',
          model: 'glm-4.7',
          messages: [user('[[tool:RecentServiceIssues {"first":2}]] [[tool-loop]]')],
          graphTools: ['RecentServiceIssues'],
        },
      });
      const chunks = results.map((r) => r.data!.chatCompletionStream);
      expect(chunks.filter((c) => c.graphStep).map((c) => c.graphStep!.turn)).toEqual([1, 2, 3]);
      expect(chunks.at(-1)).toMatchObject({
        finishReason: 'GRAPH_TOOL_LIMIT',
        usage: { totalTokens: expect.any(Number) },
      });
    } finally {
      await client.dispose();
    }
    const { chat, graph } = upstream('glm');
    expect([chat.length, graph.length]).toEqual([4, 3]);
  });

  it('refuses a call of an operation not in graphTools, and bad arguments, as the model reads them, with no upstream request', async () => {
    t.clearUpstreamRequests();
    const body = await complete({
      provider: 'ark',
      model: 'doubao-pro',
      messages: [user('[[tool:TitleSearch {"query":"alien"}]] [[tool:ServiceHealth {"service":"Exchange"}]]')],
      graphTools: ['ServiceHealth'],
    });
    const steps = body.data!.createChatCompletion.graphSteps;
    expect(steps.map((s) => [s.operation, s.errorCode])).toEqual([
      ['TitleSearch', 'BAD_USER_INPUT'],
      ['ServiceHealth', 'BAD_USER_INPUT'],
    ]);
    expect(JSON.parse(steps[0].result).errors[0].message).toBe(
      '"TitleSearch" is not one of this completion\'s graphTools (ServiceHealth).',
    );
    expect(JSON.parse(steps[1].result).errors[0].message).toBe(
      'ServiceHealth has no argument "service"; it takes id, issues.',
    );
    const { chat, graph, omdb } = upstream('ark');
    expect([chat.length, graph.length, omdb.length]).toEqual([3, 0, 0]);
  });

  it('refuses unknown graphTools names, graphTools with tools, and a completion over the request budget before any upstream request', async () => {
    t.clearUpstreamRequests();
    const unknown = await complete({
      provider: 'glm',
      model: 'glm-4.7',
      messages: [user('hi')],
      graphTools: ['DropTables'],
    });
    expect(unknown.errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', argument: 'input.graphTools[0]' },
    });
    expect(unknown.errors?.[0].message).toMatch(
      /^"DropTables" is not a trusted operation\. Use one of ChatProviders, /,
    );
    const both = await complete({
      provider: 'glm',
      model: 'glm-4.7',
      messages: [user('hi')],
      graphTools: ['ServiceHealth'],
      tools: [{ name: 'weather' }],
    });
    expect(both.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', argument: 'input.tools' } });
    expect(t.upstreamRequests()).toHaveLength(0);

    const small = await startTestGateway({ GATEWAY_MAX_UPSTREAM_REQUESTS: '3', RESPONSE_CACHE_MAX_BYTES: '0' });
    try {
      const { body } = await small.query(COMPLETE, {
        input: { provider: 'glm', model: 'glm-4.7', messages: [user(ASK_EXCHANGE)], graphTools: ['ServiceHealth'] },
      });
      expect(body.errors?.[0]).toMatchObject({
        extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS', found: 8, upstream: 'graph' },
      });
      expect(small.upstreamRequests()).toHaveLength(0);
    } finally {
      await small.close();
    }
  });

  it("runs the operations with the caller's own Graph token", async () => {
    const form = new URLSearchParams({
      client_id: 'sandbox',
      client_secret: 'sandbox',
      scope: 'https://graph.microsoft.com/.default',
      grant_type: 'client_credentials',
    });
    const token = (
      (await (
        await fetch(`${t.sandbox.origin}/login/sandbox/oauth2/v2.0/token`, { method: 'POST', body: form })
      ).json()) as { access_token: string }
    ).access_token;
    t.clearUpstreamRequests();
    const body = await complete(
      { provider: 'glm', model: 'glm-4.7', messages: [user(ASK_EXCHANGE)], graphTools: ['ServiceHealth'] },
      { authorization: `Bearer ${token}` },
    );
    expect(body.data!.createChatCompletion.graphSteps[0].errorCode).toBeNull();
    const { graph, chat } = upstream('glm');
    expect(graph.map((r) => r.headers.authorization)).toEqual([`Bearer ${token}`]);
    expect(chat.every((r) => r.headers.authorization === 'Bearer sandbox')).toBe(true);
  });

  it('the GraphiQL tab runs as shipped: two steps over the service health in one turn, then the answer', async () => {
    const example = exampleOperation('Grounded', chatExamples);
    const status = (await t.query('{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { status } } } }'))
      .body.data.admin.serviceAnnouncement.healthOverview.status as string;
    t.clearUpstreamRequests();
    const client = wsClient(t.gateway.wsUrl);
    try {
      const { results } = await collect<{
        chatCompletionStream: {
          graphStep: Step | null;
          delta: { content: string | null } | null;
          finishReason: string | null;
        };
      }>(client, example.query, example.variables);
      const chunks = results.map((r) => r.data!.chatCompletionStream);
      // The model calls the first two of the three operations offered at once, in one turn (parallel tool calls),
      // asking about the question's subject with the operations' defaults.
      expect(
        chunks
          .filter((c) => c.graphStep)
          .map((c) => [c.graphStep!.operation, c.graphStep!.arguments, c.graphStep!.turn, c.graphStep!.errorCode]),
      ).toEqual([
        ['ServiceHealthOverview', '{"first":50}', 1, null],
        ['ServiceHealth', '{"id":"Exchange","issues":5}', 1, null],
      ]);
      expect(chunks.at(-1)!.finishReason).toBe('STOP');
      // The answer quotes Exchange's status as Graph gave it to the tools.
      const answer = chunks.map((c) => c.delta?.content ?? '').join('');
      expect(answer).toContain(
        `Here is what ServiceHealthOverview and ServiceHealth returned about Exchange. According to ServiceHealthOverview, Exchange Online (Exchange) has status ${status.toLowerCase().replaceAll('_', ' ')}.`,
      );
    } finally {
      await client.dispose();
    }
    expect([upstream('deepseek').chat.length, upstream('deepseek').graph.length]).toEqual([2, 2]);
  });
});
