import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.js';
import { PROVIDERS, WEATHER_TOOL, streamOnce, user, useChatGateway } from '../../support/chat.js';

const env = useChatGateway();

const ASK = `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) {
    content reasoningUsed
    choices { finishReason message { reasoningContent toolCalls { id name arguments } } }
    usage { promptTokens completionTokens reasoningTokens }
  }
}`;

/** One completion; its answer and the body the provider was sent. */
async function ask(input: Record<string, unknown>) {
  env.t.clearUpstreamRequests();
  const { body } = await env.t.query(ASK, { input });
  expect(body.errors).toBeUndefined();
  const sent = env.t.upstreamRequests(String(input.provider)).map((r) => JSON.parse(r.body));
  return { answer: body.data!.createChatCompletion, sent: sent.at(-1) };
}

describe.each(PROVIDERS)('reasoning on $id ($toolModel reasons by default)', ({ id, toolModel }) => {
  it('left out: the model reasons, nothing is sent about it, and the answer says it did', async () => {
    const { answer, sent } = await ask({ provider: id, model: toolModel, messages: [user('Plan a trip.')] });
    expect(sent).not.toHaveProperty('thinking');
    expect(answer.reasoningUsed).toBe(true);
    expect(answer.choices[0].message.reasoningContent.length).toBeGreaterThan(0);
    // Kimi does not count reasoning tokens apart.
    if (id !== 'moonshot') expect(answer.usage.reasoningTokens).toBeGreaterThan(0);
  });

  it("enabled: false turns it off with the provider's own switch, and the answer says it did not reason", async () => {
    const { answer, sent } = await ask({
      provider: id,
      model: toolModel,
      reasoning: { enabled: false },
      messages: [user('Plan a trip.')],
    });
    expect(sent.thinking).toEqual({ type: 'disabled' });
    expect(answer.reasoningUsed).toBe(false);
    expect(answer.choices[0].message.reasoningContent).toBeNull();
  });

  it('streams reasoning as its own deltas before the content, and says on the last chunk that it reasoned', async () => {
    const { chunks, errors } = await streamOnce(env.t, {
      provider: id,
      model: toolModel,
      messages: [user('Plan a trip.')],
    });
    expect(errors).toBeUndefined();
    const kinds = chunks
      .map((c) => (c.delta.reasoningContent ? 'r' : c.delta.content ? 'c' : '-'))
      .join('')
      .replace(/-/g, '');
    expect(kinds).toMatch(/^r+c+$/);
  });
});

describe('reasoning: what goes on the wire', () => {
  it("maps effort to each provider's own scale", async () => {
    expect(
      (
        await ask({
          provider: 'deepseek',
          model: 'deepseek-flash',
          reasoning: { effort: 'MEDIUM' },
          messages: [user('Hi')],
        })
      ).sent,
    ).toMatchObject({ reasoning_effort: 'high' });
    expect(
      (
        await ask({
          provider: 'deepseek',
          model: 'deepseek-flash',
          reasoning: { effort: 'MAX' },
          messages: [user('Hi')],
        })
      ).sent,
    ).toMatchObject({ reasoning_effort: 'max' });
    expect(
      (await ask({ provider: 'ark', model: 'doubao-pro', reasoning: { effort: 'MEDIUM' }, messages: [user('Hi')] }))
        .sent,
    ).toMatchObject({ reasoning_effort: 'medium' });
    expect(
      (await ask({ provider: 'glm', model: 'glm-5.2', reasoning: { effort: 'LOW' }, messages: [user('Hi')] })).sent,
    ).toMatchObject({ reasoning_effort: 'low' });
    // An effort on a model that reasons only when asked turns it on as well.
    const { sent, answer } = await ask({
      provider: 'ark',
      model: 'doubao-vision',
      reasoning: { effort: 'LOW' },
      messages: [user('Hi')],
    });
    expect(sent).toMatchObject({ thinking: { type: 'enabled' }, reasoning_effort: 'low' });
    expect(answer.reasoningUsed).toBe(true);
  });

  it("sends only efforts the provider documents: GLM's own set, Kimi K3's, and Ark's MAX refused before any request", async () => {
    expect(
      (await ask({ provider: 'glm', model: 'glm-5.3', reasoning: { effort: 'MEDIUM' }, messages: [user('Hi')] })).sent,
    ).toMatchObject({ reasoning_effort: 'medium' });
    const k3 = await ask({
      provider: 'moonshot',
      model: 'kimi-k3',
      reasoning: { effort: 'MAX' },
      messages: [user('Hi')],
    });
    expect(k3.sent).toMatchObject({ reasoning_effort: 'max' });
    // K3 always reasons: no switch beside the effort (Kimi refuses the two together).
    expect(k3.sent).not.toHaveProperty('thinking');
    env.t.clearUpstreamRequests();
    const { body } = await env.t.query(ASK, {
      input: { provider: 'ark', model: 'doubao-pro', reasoning: { effort: 'MAX' }, messages: [user('Hi')] },
    });
    expect(body.errors![0]).toMatchObject({
      message: 'ark takes reasoning.effort MINIMAL, LOW, MEDIUM, HIGH, not MAX; pick one of those.',
      extensions: { code: 'BAD_USER_INPUT', argument: 'input.reasoning.effort' },
    });
    const kimi = await env.t.query(ASK, {
      input: { provider: 'moonshot', model: 'kimi-k3', reasoning: { effort: 'MEDIUM' }, messages: [user('Hi')] },
    });
    expect(kimi.body.errors![0].message).toBe(
      'moonshot takes reasoning.effort LOW, HIGH, MAX, not MEDIUM; pick one of those.',
    );
    expect(env.t.upstreamRequests()).toHaveLength(0);
  });

  it('a model that always reasons: no switch is sent, not even for enabled true; enabled false and a forced tool choice on Kimi are refused before any request', async () => {
    for (const [provider, model] of [
      ['glm', 'glm-5.3'],
      ['moonshot', 'kimi-k2.7-code'],
    ] as const) {
      const { sent, answer } = await ask({ provider, model, reasoning: { enabled: true }, messages: [user('Hi')] });
      expect(sent).not.toHaveProperty('thinking');
      expect(answer.reasoningUsed).toBe(true);
    }
    env.t.clearUpstreamRequests();
    const off = await env.t.query(ASK, {
      input: { provider: 'glm', model: 'glm-5.3', reasoning: { enabled: false }, messages: [user('Hi')] },
    });
    expect(off.body.errors![0].message).toBe(
      'glm model glm-5.3 always reasons; leave reasoning.enabled out, or pick a model that can answer without (reasoning OPTIONAL_ON or OPTIONAL_OFF).',
    );
    const forced = await env.t.query(ASK, {
      input: {
        provider: 'moonshot',
        model: 'kimi-k2.7-code',
        tools: [WEATHER_TOOL],
        toolChoice: { name: 'get_weather' },
        messages: [user('Weather?')],
      },
    });
    expect(forced.body.errors![0].message).toBe(
      'moonshot refuses a toolChoice naming a tool while reasoning, and kimi-k2.7-code always reasons; use toolChoice AUTO, or a model that can answer without reasoning.',
    );
    expect(env.t.upstreamRequests()).toHaveLength(0);
  });

  it('images go to a model known to take them (glm-5.3-flash)', async () => {
    const { answer } = await ask({
      provider: 'glm',
      model: 'glm-5.3-flash',
      messages: [
        {
          role: 'USER',
          parts: [
            { type: 'TEXT', text: 'What is it?' },
            { type: 'IMAGE_URL', imageUrl: 'https://example.com/a.png' },
          ],
        },
      ],
    });
    expect(answer.content.length).toBeGreaterThan(0);
  });

  it('reasons longer with a higher effort (same prompt, DeepSeek)', async () => {
    const tokens = async (effort: string) =>
      (
        await ask({
          provider: 'deepseek',
          model: 'deepseek-flash',
          reasoning: { effort },
          messages: [user('Why is the sky blue?')],
        })
      ).answer.usage.reasoningTokens;
    expect(await tokens('LOW')).toBeLessThan(await tokens('MAX'));
  });

  it('a model that never reasons: left out, it does not, and nothing is sent', async () => {
    const { answer, sent } = await ask({ provider: 'glm', model: 'glm-4-flash', messages: [user('Hi')] });
    expect([answer.reasoningUsed, sent.thinking]).toEqual([false, undefined]);
  });

  it('maxTokens caps reasoning and answer together, on Ark through max_completion_tokens', async () => {
    const { answer, sent } = await ask({
      provider: 'ark',
      model: 'doubao-pro',
      maxTokens: 5,
      messages: [user('Plan a trip.')],
    });
    expect(sent).toMatchObject({ max_completion_tokens: 5 });
    expect(sent).not.toHaveProperty('max_tokens');
    expect(answer.usage.completionTokens).toBe(5);
    expect(answer.choices[0].finishReason).toBe('LENGTH');
  });

  it('a forced tool choice on DeepSeek with reasoning left at its default: reasoning is turned off for that call, and the answer says so', async () => {
    const { answer, sent } = await ask({
      provider: 'deepseek',
      model: 'deepseek-flash',
      tools: [WEATHER_TOOL],
      toolChoice: { name: 'get_weather' },
      messages: [user('Weather in Berlin?')],
    });
    expect(sent).toMatchObject({
      thinking: { type: 'disabled' },
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(answer.reasoningUsed).toBe(false);
    expect(answer.choices[0].finishReason).toBe('TOOL_CALLS');
  });
});

describe("reasoning travels through a client's tool loop", () => {
  it.each(['deepseek', 'moonshot'] as const)(
    '%s: the turn sent back with its reasoningContent is accepted, and the reasoning goes upstream as it came',
    async (id) => {
      const model = id === 'deepseek' ? 'deepseek-flash' : 'kimi-k2.6';
      const first = await ask({ provider: id, model, tools: [WEATHER_TOOL], messages: [user('Weather in Berlin?')] });
      const { message } = first.answer.choices[0];
      expect(message.toolCalls.length).toBeGreaterThan(0);
      const second = await ask({
        provider: id,
        model,
        tools: [WEATHER_TOOL],
        messages: [
          user('Weather in Berlin?'),
          { role: 'ASSISTANT', toolCalls: message.toolCalls, reasoningContent: message.reasoningContent },
          { role: 'TOOL', toolCallId: message.toolCalls[0].id, content: '{"temp": 3}' },
        ],
      });
      expect(second.answer.choices[0].finishReason).toBe('STOP');
      expect(second.sent.messages[1]).toMatchObject({ role: 'assistant', reasoning_content: message.reasoningContent });
    },
  );

  it("a provider 400 about the caller's conversation is BAD_USER_INPUT with the provider's words and the model named", async () => {
    // The operator says deepseek-flash reasons only when asked (it does not): the gateway then lets a tool-call turn
    // without reasoning through, and DeepSeek refuses it: the turn is the caller's, so is the fix.
    const t = await startTestGateway({ DEEPSEEK_MODELS: 'deepseek-flash:reasoning=off' });
    try {
      const { body } = await t.query(ASK, {
        input: {
          provider: 'deepseek',
          model: 'deepseek-flash',
          tools: [WEATHER_TOOL],
          messages: [
            user('Weather?'),
            { role: 'ASSISTANT', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{}' }] },
            { role: 'TOOL', toolCallId: 'c1', content: '{}' },
          ],
        },
      });
      expect(body.errors![0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        upstream: 'deepseek',
        status: 400,
        model: 'deepseek-flash',
      });
      expect(body.errors![0].message).toBe(
        'The deepseek service refused the request for model deepseek-flash (invalid_request_error): The `reasoning_content` in the thinking mode must be passed back to the API.',
      );
    } finally {
      await t.close();
    }
  });
});
