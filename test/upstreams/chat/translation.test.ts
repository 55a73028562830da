import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';
import { COMPLETION, WEATHER_TOOL, streamAll, user } from '../../support/chat.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({}, { chatTokenDelayMs: 1 });
});
afterAll(() => t.close());
beforeEach(() => t.clearUpstreamRequests());

const conversation = [
  { role: 'SYSTEM', content: 'You are terse.' },
  user('Weather in Berlin?'),
  { role: 'ASSISTANT', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Berlin"}' }] },
  { role: 'TOOL', toolCallId: 'call_1', content: '{"temp":21}' },
  user('And tomorrow?'),
];

const wireConversation = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Weather in Berlin?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
  { role: 'user', content: 'And tomorrow?' },
];

const wireTools = [
  {
    type: 'function',
    function: { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, parameters: WEATHER_TOOL.parameters },
  },
];

const sampling = {
  temperature: 0.5,
  topP: 0.9,
  maxTokens: 200,
  stop: ['END'],
  tools: [WEATHER_TOOL],
  toolChoice: { mode: 'AUTO' },
  user: 'user-12345',
};
const wireSampling = {
  temperature: 0.5,
  top_p: 0.9,
  max_tokens: 200,
  stop: ['END'],
  tools: wireTools,
  tool_choice: 'auto',
};

/** One mutation and one subscription with `input`; the two upstream bodies, in that order. */
async function bodies(provider: string, input: Record<string, unknown>) {
  const answer = await t.query(COMPLETION, { input: { provider, ...input } });
  expect(answer.body.errors).toBeUndefined();
  const client = wsClient(t.gateway.wsUrl);
  const streamed = await streamAll(client, { provider, ...input });
  await client.dispose();
  expect(streamed.errors).toBeUndefined();
  const requests = t.upstreamRequests(provider);
  expect(requests).toHaveLength(2);
  for (const r of requests) {
    expect(r.method).toBe('POST');
    expect(r.headers.authorization).toBe('Bearer sandbox');
    expect(r.headers['content-type']).toBe('application/json');
  }
  return { requests, plain: JSON.parse(requests[0].body), stream: JSON.parse(requests[1].body) };
}

describe('request translation', () => {
  it('glm: user becomes user_id, no stream_options, tool_stream on models that stream tool arguments', async () => {
    const { requests, plain, stream } = await bodies('glm', {
      model: 'glm-4.7',
      messages: conversation,
      ...sampling,
      stop: ['END'],
    });
    expect(requests[0].url).toBe('/glm/api/paas/v4/chat/completions');
    expect(plain).toEqual({
      model: 'glm-4.7',
      messages: wireConversation,
      stream: false,
      ...wireSampling,
      user_id: 'user-12345',
    });
    expect(stream).toEqual({ ...plain, stream: true, tool_stream: true });
  });

  it('glm: toolChoice NONE is honoured by offering no tools, since GLM only knows auto', async () => {
    const { plain, stream } = await bodies('glm', {
      model: 'glm-4-flash',
      messages: [user('No tools please.')],
      tools: [WEATHER_TOOL],
      toolChoice: { mode: 'NONE' },
    });
    expect(plain).toEqual({
      model: 'glm-4-flash',
      messages: [{ role: 'user', content: 'No tools please.' }],
      stream: false,
    });
    expect(stream).toEqual({ ...plain, stream: true });
  });

  it('ark: the model name becomes its inference endpoint id, and streams ask for usage', async () => {
    const { requests, plain, stream } = await bodies('ark', {
      model: 'doubao-pro',
      messages: conversation,
      ...sampling,
    });
    expect(requests[0].url).toBe('/ark/api/v3/chat/completions');
    // Ark's max_tokens leaves the reasoning out; max_completion_tokens is the one that counts all the model writes.
    const { max_tokens, ...rest } = wireSampling;
    expect(plain).toEqual({
      model: 'ep-20250101-doubao-pro',
      messages: wireConversation,
      stream: false,
      ...rest,
      max_completion_tokens: max_tokens,
      user: 'user-12345',
    });
    expect(stream).toEqual({ ...plain, stream: true, stream_options: { include_usage: true } });
  });

  it('ark: a raw ep- endpoint id goes through as it is, and a named tool choice becomes a function object', async () => {
    const { plain } = await bodies('ark', {
      model: 'ep-20250101-doubao-lite',
      messages: [user('Hi')],
      tools: [WEATHER_TOOL],
      toolChoice: { name: 'get_weather' },
    });
    expect(plain).toMatchObject({
      model: 'ep-20250101-doubao-lite',
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
  });

  it('deepseek: OpenAI-style with user_id, streams ask for usage, and a forced tool choice turns the default reasoning off', async () => {
    // Reasoning left at its default: the earlier tool-call turn needs no reasoningContent once it is off.
    const { requests, plain, stream } = await bodies('deepseek', {
      model: 'deepseek-flash',
      messages: conversation,
      ...sampling,
      toolChoice: { mode: 'REQUIRED' },
    });
    expect(requests[0].url).toBe('/deepseek/v1/chat/completions');
    expect(plain).toEqual({
      model: 'deepseek-flash',
      messages: wireConversation,
      stream: false,
      ...wireSampling,
      tool_choice: 'required',
      user_id: 'user-12345',
      thinking: { type: 'disabled' },
    });
    expect(stream).toEqual({ ...plain, stream: true, stream_options: { include_usage: true } });
  });

  it('moonshot: OpenAI-style without stream_options (usage comes in the last choice), images as image_url parts', async () => {
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    const messages = [
      {
        role: 'USER',
        parts: [
          { type: 'TEXT', text: 'What is in this picture?' },
          { type: 'IMAGE_URL', imageUrl: image },
        ],
      },
    ];
    const { requests, plain, stream } = await bodies('moonshot', {
      model: 'moonshot-v1-8k-vision-preview',
      messages,
      temperature: 0.3,
    });
    expect(requests[0].url).toBe('/moonshot/v1/chat/completions');
    expect(plain).toEqual({
      model: 'moonshot-v1-8k-vision-preview',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: image } },
          ],
        },
      ],
      stream: false,
      temperature: 0.3,
    });
    expect(stream).toEqual({ ...plain, stream: true });
  });
});
