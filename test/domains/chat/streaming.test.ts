import { describe, expect, it } from 'vitest';
import { wsClient } from '../../support/ws.js';
import { COMPLETION, PROVIDERS, WEATHER_TOOL, streamAll, text, user, useChatGateway } from '../../support/chat.js';

const env = useChatGateway();

describe.each(PROVIDERS)('chatCompletionStream on $id', ({ id, model, toolModel }) => {
  it('streams delta by delta the same text the mutation returns, with finishReason and usage on the last chunk only', async () => {
    const input = {
      provider: id,
      model,
      messages: [{ role: 'SYSTEM', content: 'Be brief.' }, user(`Tell me about ${id} streaming.`)],
    };
    const answer = (await env.t.query(COMPLETION, { input })).body.data!.createChatCompletion;
    const client = wsClient(env.t.gateway.wsUrl);
    const { chunks, errors } = await streamAll(client, input);
    await client.dispose();

    expect(errors).toBeUndefined();
    expect(answer.content.length).toBeGreaterThan(20);
    expect(text(chunks)).toBe(answer.content);
    // One token per upstream event: the gateway passed them on one by one, not as one buffered block.
    expect(chunks.filter((c) => c.delta.content || c.delta.reasoningContent).length).toBeGreaterThanOrEqual(
      answer.usage.completionTokens - 1,
    );
    const last = chunks.at(-1)!;
    expect(last.finishReason).toBe('STOP');
    expect(last.usage).toEqual(answer.usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null && c.finishReason === null)).toBe(true);
    expect(new Set(chunks.map((c) => c.provider))).toEqual(new Set([id]));
    expect(new Set(chunks.map((c) => c.model))).toEqual(new Set([model]));
    expect(env.t.upstreamRequests(id).map((r) => JSON.parse(r.body).stream)).toEqual([false, true]);
  });

  it('passes tool-call fragments with their index, which reassemble to the JSON arguments the mutation returns assembled', async () => {
    const input = {
      provider: id,
      model: toolModel,
      messages: [user('What is the weather in Hangzhou?')],
      tools: [WEATHER_TOOL],
    };
    const answer = (await env.t.query(COMPLETION, { input })).body.data!.createChatCompletion;
    const client = wsClient(env.t.gateway.wsUrl);
    const { chunks, errors } = await streamAll(client, input);
    await client.dispose();

    expect(errors).toBeUndefined();
    const [call] = answer.choices[0].message.toolCalls;
    expect(answer.choices[0].finishReason).toBe('TOOL_CALLS');
    expect(JSON.parse(call.arguments)).toHaveProperty('city');
    const fragments = chunks.flatMap((c) => c.delta.toolCalls ?? []);
    expect(fragments.length).toBeGreaterThan(2);
    expect(fragments.every((f) => f.index === 0)).toBe(true);
    const streamed = {
      id: fragments.find((f) => f.id)?.id,
      name: fragments.find((f) => f.name)?.name,
      arguments: fragments.map((f) => f.arguments ?? '').join(''),
    };
    expect(streamed).toEqual(call);
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'TOOL_CALLS', usage: answer.usage });
  });

  it('ends a stream whose connection is cut mid-way with UPSTREAM_ERROR', async () => {
    env.t.sandbox.faults.push({ upstream: id, times: 1, cutAfterChunks: 5 });
    const client = wsClient(env.t.gateway.wsUrl);
    const { chunks, errors } = await streamAll(client, {
      provider: id,
      model,
      messages: [user('This one breaks off.')],
    });
    await client.dispose();

    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.length).toBeLessThanOrEqual(5);
    expect(chunks.every((c) => c.finishReason === null)).toBe(true);
    expect(errors).toHaveLength(1);
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: id });
    expect(errors![0].message).toMatch(new RegExp(`The ${id} stream broke off after \\d+ chunks`));
  });

  it('retries a 429 with Retry-After: 1 that came before the first byte, then streams', async () => {
    env.t.sandbox.faults.push({ upstream: id, times: 1, status: 429, retryAfter: 1 });
    const client = wsClient(env.t.gateway.wsUrl);
    const { chunks, errors } = await streamAll(client, { provider: id, model, messages: [user('Retry me.')] });
    await client.dispose();

    expect(errors).toBeUndefined();
    expect(chunks.at(-1)!.finishReason).toBe('STOP');
    expect(env.t.upstreamRequests(id).map((r) => r.status)).toEqual([429, 200]);
  });
});

describe('reasoning models', () => {
  it('deepseek-flash streams reasoningContent before content, both equal to the mutation', async () => {
    const input = { provider: 'deepseek', model: 'deepseek-flash', messages: [user('Think first, then answer.')] };
    const answer = (await env.t.query(COMPLETION, { input })).body.data!.createChatCompletion;
    const client = wsClient(env.t.gateway.wsUrl);
    const { chunks } = await streamAll(client, input);
    await client.dispose();

    const reasoning = chunks.map((c) => c.delta.reasoningContent ?? '').join('');
    expect(reasoning.length).toBeGreaterThan(10);
    expect(reasoning).toBe(answer.choices[0].message.reasoningContent);
    expect(text(chunks)).toBe(answer.content);
    const firstContent = chunks.findIndex((c) => c.delta.content);
    expect(chunks.slice(firstContent).every((c) => !c.delta.reasoningContent)).toBe(true);
  });
});
