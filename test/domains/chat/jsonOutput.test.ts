import { describe, expect, it } from 'vitest';
import { PROVIDERS, user, useChatGateway, type GraphError } from '../../support/chat.js';
import { collect, wsClient } from '../../support/ws.js';

const env = useChatGateway();

const ASK = `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) { content json jsonError choices { finishReason } }
}`;
const STREAM = `subscription Stream($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) { delta { content } finishReason json jsonError }
}`;

const CITY = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city', 'days'],
  additionalProperties: false,
};

async function ask(input: Record<string, unknown>) {
  env.t.clearUpstreamRequests();
  const { body } = await env.t.query(ASK, { input });
  const sent = env.t.upstreamRequests(String(input.provider)).map((r) => JSON.parse(r.body));
  return {
    body: body as {
      data?: { createChatCompletion: { content: string; json: any; jsonError: string | null } };
      errors?: GraphError[];
    },
    sent: sent.at(-1),
  };
}

describe.each(PROVIDERS)('JSON output on $id', ({ id, model }) => {
  it('JSON_OBJECT: object mode upstream, the answer parsed into json', async () => {
    const { body, sent } = await ask({
      provider: id,
      model,
      responseFormat: { type: 'JSON_OBJECT' },
      messages: [user('Answer in JSON: what is a gateway?')],
    });
    expect(body.errors).toBeUndefined();
    expect(sent.response_format).toEqual({ type: 'json_object' });
    const answer = body.data!.createChatCompletion;
    expect(answer.json).toEqual(JSON.parse(answer.content));
    expect(answer.jsonError).toBeNull();
  });

  it('JSON_SCHEMA: a value of the schema, checked by the gateway (sent as a schema to Ark, as an instruction elsewhere)', async () => {
    const { body, sent } = await ask({
      provider: id,
      model,
      responseFormat: { type: 'JSON_SCHEMA', schema: CITY },
      messages: [user('Plan a short trip.')],
    });
    expect(body.errors).toBeUndefined();
    const answer = body.data!.createChatCompletion;
    expect(Object.keys(answer.json).sort()).toEqual(['city', 'days']);
    if (id === 'ark') {
      expect(sent.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'answer', schema: CITY, strict: true },
      });
      expect(sent.messages).toEqual([{ role: 'user', content: 'Plan a short trip.' }]);
    } else {
      expect(sent.response_format).toEqual({ type: 'json_object' });
      expect(sent.messages[0]).toEqual({
        role: 'system',
        content: `Answer with one JSON object and nothing else. It must match this JSON Schema: ${JSON.stringify(CITY)}`,
      });
    }
  });
});

describe('JSON output: answers that miss', () => {
  it('strict (the default): an answer not matching the schema is UPSTREAM_ERROR; strict false gives the text and jsonError', async () => {
    const input = {
      provider: 'deepseek',
      model: 'deepseek-flash',
      responseFormat: { type: 'JSON_SCHEMA', schema: CITY },
      messages: [user('Plan a trip. [[json:bad]]')],
    };
    const strict = await ask(input);
    expect(strict.body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstream: 'deepseek',
      upstreamCode: 'JSON_SCHEMA_MISMATCH',
    });
    expect(strict.body.errors![0].message).toMatch(
      /^The deepseek answer was not the JSON asked for: the answer does not match the schema: #.*Retry, or set responseFormat\.strict false/,
    );
    const lax = await ask({ ...input, responseFormat: { ...input.responseFormat, strict: false } });
    expect(lax.body.data!.createChatCompletion).toMatchObject({
      json: null,
      content: '{"unexpected":true}',
      jsonError: expect.stringMatching(/^the answer does not match the schema/),
    });
  });

  it('an answer cut by maxTokens says so instead of failing to parse', async () => {
    const { body } = await ask({
      provider: 'glm',
      model: 'glm-4-flash',
      maxTokens: 2,
      responseFormat: { type: 'JSON_OBJECT' },
      messages: [user('JSON please')],
    });
    expect(body.data!.createChatCompletion).toMatchObject({
      json: null,
      jsonError: 'the answer was cut by maxTokens before its JSON ended',
      choices: [{ finishReason: 'LENGTH' }],
    });
  });

  it('a stream carries the parsed answer on its last chunk', async () => {
    const client = wsClient(env.t.gateway.wsUrl);
    try {
      const { results } = await collect<{
        chatCompletionStream: {
          delta: { content: string | null };
          finishReason: string | null;
          json: any;
          jsonError: string | null;
        };
      }>(client, STREAM, {
        input: {
          provider: 'ark',
          model: 'doubao-pro',
          responseFormat: { type: 'JSON_SCHEMA', schema: CITY },
          messages: [user('Plan a short trip.')],
        },
      });
      const chunks = results.map((r) => r.data!.chatCompletionStream);
      const text = chunks.map((c) => c.delta.content ?? '').join('');
      expect(chunks.at(-1)).toMatchObject({ finishReason: 'STOP', json: JSON.parse(text), jsonError: null });
      expect(chunks.slice(0, -1).every((c) => c.json === null)).toBe(true);
    } finally {
      await client.dispose();
    }
  });
});
