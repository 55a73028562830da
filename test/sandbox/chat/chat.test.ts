import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runningChatWriters, SANDBOX_MODELS } from '../../../src/sandbox/chat/index.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';

type Provider = 'glm' | 'ark' | 'deepseek' | 'moonshot';
const PROVIDERS: Provider[] = ['glm', 'ark', 'deepseek', 'moonshot'];

/**
 * Per provider: a text model (answering without reasoning, so token counts are the answer's: DeepSeek has no such
 * model any more, so its requests turn thinking off), a vision model, and how its envelope names an error.
 */
const CASES: Record<
  Provider,
  { model: string; visionModel: string; plain?: Record<string, unknown>; errorName: (body: any) => string }
> = {
  glm: { model: 'glm-4-flash', visionModel: 'glm-4v-plus', errorName: (b) => b.error.code },
  ark: { model: 'ep-20250101-doubao-lite', visionModel: 'ep-20250101-doubao-vision', errorName: (b) => b.error.code },
  deepseek: {
    model: 'deepseek-v4-pro',
    visionModel: 'deepseek-flash',
    plain: { thinking: { type: 'disabled' } },
    errorName: (b) => b.error.type,
  },
  moonshot: { model: 'moonshot-v1-8k', visionModel: 'moonshot-v1-8k-vision-preview', errorName: (b) => b.error.type },
};

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        hourly: { type: 'boolean' },
        spots: {
          type: 'array',
          items: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } },
        },
      },
      required: ['city'],
    },
  },
};

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
});
afterAll(() => sandbox.close());
afterEach(() => control('POST', '/_sandbox/reset'));

async function control(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(sandbox.origin + path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

function post(
  provider: Provider,
  body: unknown,
  key: string | null = 'sandbox',
  path = '/chat/completions',
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  return fetch(sandbox.baseUrls[provider] + path, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const ask = (
  provider: Provider,
  extra: Record<string, unknown> = {},
  content = 'How does the gateway stream tokens?',
) =>
  post(provider, {
    model: CASES[provider].model,
    messages: [{ role: 'user', content }],
    ...CASES[provider].plain,
    ...extra,
  });

/** The raw body, even when the server cuts the connection part-way (then `complete` is false). */
async function readRaw(res: Response): Promise<{ text: string; complete: boolean }> {
  const reader = res.body!.getReader();
  const parts: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
    return { text: Buffer.concat(parts).toString('utf8'), complete: true };
  } catch {
    return { text: Buffer.concat(parts).toString('utf8'), complete: false };
  }
}

interface Sse {
  raw: string;
  comments: string[];
  /** `data:` payloads in order, `[DONE]` included as the string. */
  data: string[];
  /** Parsed JSON chunks (all data but `[DONE]`). */
  chunks: any[];
}

function parseSse(raw: string): Sse {
  const events = raw.split('\n\n');
  // Every event, the last included, is terminated by a blank line.
  expect(events.pop()).toBe('');
  const comments: string[] = [];
  const data: string[] = [];
  for (const e of events) {
    expect(e).not.toContain('\n');
    if (e.startsWith(': ')) comments.push(e.slice(2));
    else {
      expect(e.startsWith('data: ')).toBe(true);
      data.push(e.slice(6));
    }
  }
  return { raw, comments, data, chunks: data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d)) };
}

async function stream(provider: Provider, extra: Record<string, unknown> = {}, content?: string): Promise<Sse> {
  const res = await ask(provider, { stream: true, ...extra }, content);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const { text, complete } = await readRaw(res);
  expect(complete).toBe(true);
  return parseSse(text);
}

const contentOf = (s: Sse) => s.chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
const finishOf = (s: Sse) => s.chunks.map((c) => c.choices?.[0]?.finish_reason).filter((f) => typeof f === 'string');

describe.each(PROVIDERS)('%s emulator', (provider) => {
  const { model, errorName } = CASES[provider];

  it('answers a request with the sandbox key in the OpenAI-style shape', async () => {
    const res = await ask(provider);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.model).toBe(model);
    expect(body.choices).toHaveLength(1);
    expect(body.choices[0]).toMatchObject({ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' });
    const content: string = body.choices[0].message.content;
    expect(content).toMatch(/^[A-Z].*\.$/);
    expect(body.usage.completion_tokens).toBeGreaterThanOrEqual(20);
    expect(body.usage.completion_tokens).toBeLessThanOrEqual(80);
    // 6 words and a question mark, plus 3 for the message.
    expect(body.usage.prompt_tokens).toBe(10);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('lists its models on GET /models', async () => {
    const res = await fetch(`${sandbox.baseUrls[provider]}/models`, { headers: { authorization: 'Bearer sandbox' } });
    const body = await res.json();
    expect(body.object).toBe('list');
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(SANDBOX_MODELS[provider].map((m) => m.id));
  });

  it('refuses a wrong key with its own 401 envelope', async () => {
    const wrong = await post(provider, { model, messages: [{ role: 'user', content: 'hi' }] }, 'sk-wrong1234abcd');
    expect(wrong.status).toBe(401);
    const expected = {
      glm: { error: { code: '1002', message: expect.any(String) } },
      ark: {
        error: {
          code: 'AuthenticationError',
          message: expect.stringMatching(
            /^The API key or AK\/SK in the request is missing or invalid\. Request ID: 0217\w+$/,
          ),
          param: '',
          type: 'Unauthorized',
        },
      },
      deepseek: {
        error: {
          message: 'Authentication Fails, Your api key: ****abcd is invalid',
          type: 'authentication_error',
          param: null,
          code: 'invalid_request_error',
        },
      },
      moonshot: { error: { type: 'invalid_authentication_error', message: 'Invalid Authentication' } },
    }[provider];
    expect(await wrong.json()).toStrictEqual(expected);
    const missing = await post(provider, { model, messages: [{ role: 'user', content: 'hi' }] }, null);
    expect(missing.status).toBe(401);
  });

  it('answers a wrong path with a 404', async () => {
    const res = await post(provider, {}, 'sandbox', '/chat/completion');
    expect(res.status).toBe(404);
  });

  it('refuses an unknown model with its own error', async () => {
    const res = await post(provider, { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] });
    const expected = {
      glm: [400, '1211'],
      ark: [404, 'InvalidEndpointOrModel.NotFound'],
      deepseek: [400, 'invalid_request_error'],
      moonshot: [404, 'resource_not_found_error'],
    }[provider];
    expect([res.status, errorName(await res.json())]).toEqual(expected);
  });

  it('answers 400 in its envelope to a body that is not JSON, empty messages, and a tool result without tool_call_id', async () => {
    const expectedName = {
      glm: /^121[04]$/,
      ark: /^(InvalidParameter|MissingParameter)$/,
      deepseek: /^invalid_request_error$/,
      moonshot: /^invalid_request_error$/,
    }[provider];
    const bodies = [
      '{"model":',
      { model, messages: [] },
      {
        model,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', content: '{"ok":true}' },
        ],
      },
    ];
    for (const body of bodies) {
      const res = await post(provider, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorName(await res.json())).toMatch(expectedName);
    }
  });

  it('refuses an image part on a text-only model', async () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ];
    const res = await post(provider, { model, messages });
    expect(res.status).toBe(400);
    if (CASES[provider].visionModel) {
      const ok = await post(provider, { model: CASES[provider].visionModel, messages, ...CASES[provider].plain });
      expect(ok.status).toBe(200);
      // The image counts 256 prompt tokens.
      expect((await ok.json()).usage.prompt_tokens).toBe(256 + 4 + 3);
    }
  });

  it('gives the same tokens for the same request, streamed or not', async () => {
    const a = await (await ask(provider)).json();
    const b = await (await ask(provider)).json();
    expect(b.choices[0].message.content).toBe(a.choices[0].message.content);
    const s = await stream(provider);
    expect(contentOf(s)).toBe(a.choices[0].message.content);
    const other = await (await ask(provider, {}, 'Something else entirely')).json();
    expect(other.choices[0].message.content).not.toBe(a.choices[0].message.content);
  });

  it('stops after max_tokens with finish length, one token per event', async () => {
    const full = (await (await ask(provider)).json()).choices[0].message.content as string;
    const body = await (await ask(provider, { max_tokens: 5 })).json();
    expect(body.choices[0].finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBe(5);
    expect(full.startsWith(body.choices[0].message.content)).toBe(true);
    const s = await stream(provider, { max_tokens: 5 });
    expect(s.chunks.filter((c) => c.choices?.[0]?.delta?.content).length).toBe(5);
    expect(finishOf(s)).toEqual(['length']);
  });

  it('pads each streamed token of a [[long:N:B]] answer to B characters of ~, the bytes JSON.stringify would write', async () => {
    // Only streamed tokens are padded: the same request unstreamed is the answer's plain text.
    const plain = (await (await ask(provider, {}, 'Pad me [[long:40:300]]')).json()).choices[0].message
      .content as string;
    const s = await stream(provider, {}, 'Pad me [[long:40:300]]');
    const tokens = s.chunks.map((c) => c.choices?.[0]?.delta?.content).filter((t) => t);
    expect(tokens).toHaveLength(40);
    for (const t of tokens) {
      expect(t).toMatch(/^[^~]+~+$/);
      expect(t).toHaveLength(300);
    }
    expect(tokens.map((t: string) => t.replace(/~+$/, '')).join('')).toBe(plain);
    for (const d of s.data.filter((x) => x !== '[DONE]')) expect(d).toBe(JSON.stringify(JSON.parse(d)));
  });

  it('ends before a stop sequence with finish stop', async () => {
    const full = (await (await ask(provider)).json()).choices[0].message.content as string;
    const stopAt = full.indexOf(' ', 10);
    const stop = full.slice(stopAt, stopAt + 4);
    const body = await (await ask(provider, { stop: [stop] })).json();
    expect(body.choices[0].message.content).toBe(full.slice(0, full.indexOf(stop)));
    expect(body.choices[0].finish_reason).toBe('stop');
  });

  it('calls the offered tool with schema-shaped arguments, and answers in text after the tool result', async () => {
    const extra = { tools: [WEATHER_TOOL], ...(provider === 'glm' ? { tool_stream: true } : {}) };
    const s = await stream(provider, extra, 'Weather in Hangzhou?');
    const calls = s.chunks.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    expect(calls.length).toBeGreaterThan(3);
    expect(calls[0]).toMatchObject({
      index: 0,
      id: expect.stringMatching(/^call_[0-9a-f]+$/),
      type: 'function',
      function: { name: 'get_weather' },
    });
    for (const later of calls.slice(1)) expect(Object.keys(later).sort()).toEqual(['function', 'index']);
    const fragments = calls.map((c) => c.function.arguments as string);
    for (const f of fragments.slice(1, -1)) expect(f.length).toBeGreaterThanOrEqual(5);
    const args = JSON.parse(fragments.join(''));
    expect(Object.keys(args).sort()).toEqual(['city', 'days', 'hourly', 'spots', 'unit']);
    // Free text asks about the question's subject.
    expect(args.city).toBe('Hangzhou');
    expect(Number.isInteger(args.days) && args.days >= 1 && args.days <= 7).toBe(true);
    expect(['celsius', 'fahrenheit']).toContain(args.unit);
    expect(finishOf(s)).toEqual(['tool_calls']);

    const body = await (await ask(provider, extra, 'Weather in Hangzhou?')).json();
    expect(body.choices[0].message.tool_calls[0]).toMatchObject({
      id: calls[0].id,
      function: { name: 'get_weather', arguments: fragments.join('') },
    });
    const followUp = await post(provider, {
      model,
      ...CASES[provider].plain,
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather in Hangzhou?' },
        { role: 'assistant', content: null, tool_calls: body.choices[0].message.tool_calls },
        { role: 'tool', tool_call_id: calls[0].id, content: '{"temp":21}' },
      ],
    });
    const answer = await followUp.json();
    expect(answer.choices[0].finish_reason).toBe('stop');
    expect(answer.choices[0].message.content).toContain(
      'Here is what get_weather returned about Hangzhou. According to get_weather, the result has temp 21.',
    );
  });

  it('reaches content filtering with the [[sensitive]] marker', async () => {
    const body = await (await ask(provider, {}, 'Tell me something [[sensitive]]')).json();
    expect(body.choices[0].finish_reason).toBe(provider === 'glm' ? 'sensitive' : 'content_filter');
    const s = await stream(provider, {}, 'Tell me something [[sensitive]]');
    expect(finishOf(s)).toEqual([body.choices[0].finish_reason]);
  });

  it('cuts the stream after cutAfterChunks events without [DONE]', async () => {
    await control('POST', '/_sandbox/faults', { upstream: provider, cutAfterChunks: 3 });
    const res = await ask(provider, { stream: true });
    expect(res.status).toBe(200);
    const { text, complete } = await readRaw(res);
    expect(complete).toBe(false);
    expect(text.match(/^data: /gm)).toHaveLength(3);
    expect(text).not.toContain('[DONE]');
  });

  it('cuts a non-streaming body half-way for cutAfterChunks', async () => {
    await control('POST', '/_sandbox/faults', { upstream: provider, cutAfterChunks: 1 });
    const { text, complete } = await readRaw(await ask(provider));
    expect(complete).toBe(false);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('answers a path under its short prefix with a 404 too', async () => {
    const res = await fetch(`${sandbox.origin}/${provider}/v2/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toBeTruthy();
  });

  it('answers an injected 429 and 500 in its own envelope', async () => {
    await control('POST', '/_sandbox/faults', { upstream: provider, status: 429, retryAfter: 2 });
    const limited = await ask(provider);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    const expected = {
      glm: '1302',
      ark: 'RateLimitExceeded.EndpointRPMExceeded',
      deepseek: 'rate_limit_error',
      moonshot: 'rate_limit_reached_error',
    }[provider];
    expect(errorName(await limited.json())).toBe(expected);
    await control('POST', '/_sandbox/faults', { upstream: provider, status: 500 });
    const failed = await ask(provider);
    expect(failed.status).toBe(500);
    expect(errorName(await failed.json())).toEqual(expect.any(String));
  });

  it('aims a fault at the request whose body contains matchBody, and refuses an empty one', async () => {
    await control('POST', '/_sandbox/faults', {
      upstream: provider,
      status: 429,
      retryAfter: 1,
      matchBody: '"Storm 1"',
    });
    // "Storm 10" contains "Storm 1" but not the quoted text: untouched, and the fault waits for its own request.
    expect((await ask(provider, {}, 'Storm 10')).status).toBe(200);
    expect(await control('GET', '/_sandbox/faults')).toHaveLength(1);
    expect((await ask(provider, {}, 'Storm 1')).status).toBe(429);
    expect(await control('GET', '/_sandbox/faults')).toEqual([]);
    const bad = await fetch(`${sandbox.origin}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ upstream: provider, status: 429, matchBody: '' }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('matchBody must be a non-empty string');
  });

  it('limits requests per minute over a sliding window with its own 429', async () => {
    await control('POST', '/_sandbox/config', { chatRpm: { [provider]: 2 } });
    expect((await ask(provider)).status).toBe(200);
    expect((await ask(provider)).status).toBe(200);
    const limited = await ask(provider);
    expect(limited.status).toBe(429);
    const expected = {
      glm: '1302',
      ark: 'RateLimitExceeded.EndpointRPMExceeded',
      deepseek: 'rate_limit_error',
      moonshot: 'rate_limit_reached_error',
    }[provider];
    expect(errorName(await limited.json())).toBe(expected);
    // The window slides with the sandbox clock: a minute later the old requests no longer count.
    await control('POST', '/_sandbox/clock', { offsetMs: 60_001 });
    expect((await ask(provider)).status).toBe(200);
  });

  it('stops generating when the client goes away, and the record shows the abort', async () => {
    await control('POST', '/_sandbox/config', { chatTokenDelayMs: 50 });
    const client = new AbortController();
    const res = await fetch(sandbox.baseUrls[provider] + '/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'A long answer please' }] }),
      signal: client.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    expect(runningChatWriters()).toBe(1);
    client.abort();
    // 20+ tokens at 50 ms would keep a writer that ignored the abort busy for over a second.
    const started = Date.now();
    while (runningChatWriters() > 0 && Date.now() - started < 500) await new Promise((r) => setTimeout(r, 10));
    expect(runningChatWriters()).toBe(0);
    const requests = await control('GET', '/_sandbox/requests');
    expect(requests.at(-1)).toMatchObject({ upstream: provider, aborted: true, status: null });
  });
});

describe('glm stream layout and rules', () => {
  it('repeats role in every delta, leaves finish_reason out until the end, and puts usage at top level on the last chunk only', async () => {
    const s = await stream('glm', { max_tokens: 4 });
    expect(s.comments).toEqual([]);
    expect(s.data.at(-1)).toBe('[DONE]');
    expect(s.chunks).toHaveLength(5);
    for (const c of s.chunks) {
      expect(Object.keys(c).filter((k) => k !== 'usage')).toEqual(['id', 'created', 'model', 'choices']);
      expect(c.id).toMatch(/^\d{14}[0-9a-f]{16}$/);
      expect(c.choices[0].delta.role).toBe('assistant');
    }
    for (const c of s.chunks.slice(0, -1)) {
      expect(c.choices[0]).not.toHaveProperty('finish_reason');
      expect(c).not.toHaveProperty('usage');
    }
    const last = s.chunks.at(-1);
    expect(last.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'length',
      delta: { role: 'assistant', content: '' },
    });
    expect(last.usage).toStrictEqual({
      prompt_tokens: 10,
      completion_tokens: 4,
      total_tokens: 14,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it('puts the request id in non-streaming bodies and omits object', async () => {
    const body = await (await ask('glm')).json();
    expect(body.request_id).toBe(body.id);
    expect(body).not.toHaveProperty('object');
    expect(body.usage.prompt_tokens_details).toEqual({ cached_tokens: 0 });
  });

  it('sends a tool call whole unless tool_stream is set', async () => {
    const s = await stream('glm', { tools: [WEATHER_TOOL] }, 'Weather?');
    const calls = s.chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0].function.arguments)).toHaveProperty('city');
  });

  it('refuses stream_options, tool_choice other than auto, temperature above 1 and a prompt over the context window', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ stream: true, stream_options: { include_usage: true } }, '1210'],
      [{ tools: [WEATHER_TOOL], tool_choice: 'required' }, '1210'],
      [{ temperature: 1.5 }, '1210'],
    ];
    for (const [extra, code] of cases) {
      const res = await ask('glm', extra);
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect((await res.json()).error.code).toBe(code);
    }
    const long = await post('glm', {
      model: 'glm-4v-plus',
      messages: [{ role: 'user', content: 'word '.repeat(8_000) }],
    });
    expect(long.status).toBe(400);
    expect(await long.json()).toStrictEqual({ error: { code: '1261', message: 'Prompt exceeds max length' } });
    const unknown = await post('glm', { model: 'glm-99', messages: [{ role: 'user', content: 'hi' }] });
    expect(await unknown.json()).toStrictEqual({ error: { code: '1211', message: '模型不存在，请检查模型代码。' } });
  });

  it('tells a missing Authorization header (1001) from a bad token (1002)', async () => {
    const missing = await post('glm', { model: 'glm-4-flash', messages: [] }, null);
    expect((await missing.json()).error.code).toBe('1001');
  });

  it('reaches network_error and model_context_window_exceeded through markers', async () => {
    for (const [marker, reason] of [
      ['[[network_error]]', 'network_error'],
      ['[[context]]', 'model_context_window_exceeded'],
    ]) {
      const body = await (await ask('glm', {}, `Go ${marker}`)).json();
      expect(body.choices[0].finish_reason).toBe(reason);
    }
  });

  it('sends an in-band error event mid-stream for [[error]], and a 500 when not streaming', async () => {
    const s = await stream('glm', {}, 'Please [[error]]');
    const last = s.chunks.at(-1);
    expect(last).toStrictEqual({ error: { code: '1234', message: expect.stringContaining('网络错误') } });
    expect(s.chunks.length).toBeGreaterThan(1);
    expect(s.data).not.toContain('[DONE]');
    const res = await ask('glm', {}, 'Please [[error]]');
    expect(res.status).toBe(500);
    expect((await res.json()).error.code).toBe('1234');
  });

  it('reasons by default on GLM 4.6 and later, not with thinking disabled, and never on glm-4-flash', async () => {
    const body = await (await post('glm', { model: 'glm-4.6', messages: [{ role: 'user', content: 'Think' }] })).json();
    expect(body.choices[0].message.reasoning_content.length).toBeGreaterThan(0);
    expect(body.usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const off = await (
      await post('glm', {
        model: 'glm-4.6',
        thinking: { type: 'disabled' },
        messages: [{ role: 'user', content: 'Think' }],
      })
    ).json();
    expect(off.choices[0].message).not.toHaveProperty('reasoning_content');
    const old = await (
      await post('glm', {
        model: 'glm-4-flash',
        thinking: { type: 'enabled' },
        messages: [{ role: 'user', content: 'Think' }],
      })
    ).json();
    expect(old.choices[0].message).not.toHaveProperty('reasoning_content');
  });

  it('refuses json_schema, which only Ark takes', async () => {
    const res = await post('glm', {
      model: 'glm-4-flash',
      response_format: { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' } } },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect([res.status, (await res.json()).error.code]).toEqual([400, '1210']);
  });
});

describe('ark stream layout and rules', () => {
  it('answers a json_schema request with JSON of that schema, and counts reasoning under max_completion_tokens only', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
      required: ['city', 'days'],
    };
    const body = await (
      await post('ark', {
        model: 'ep-20250101-doubao-pro',
        response_format: { type: 'json_schema', json_schema: { name: 'w', schema, strict: true } },
        messages: [{ role: 'user', content: 'Weather plan' }],
      })
    ).json();
    const value = JSON.parse(body.choices[0].message.content);
    expect(Object.keys(value).sort()).toEqual(['city', 'days']);
    expect(body.choices[0].message.reasoning_content.length).toBeGreaterThan(0);
    // max_tokens caps the answer after the reasoning; max_completion_tokens caps both.
    const capped = await (
      await post('ark', {
        model: 'ep-20250101-doubao-pro',
        max_tokens: 3,
        messages: [{ role: 'user', content: 'Plan' }],
      })
    ).json();
    expect(capped.usage.completion_tokens - capped.usage.completion_tokens_details.reasoning_tokens).toBe(3);
    const all = await (
      await post('ark', {
        model: 'ep-20250101-doubao-pro',
        max_completion_tokens: 3,
        messages: [{ role: 'user', content: 'Plan' }],
      })
    ).json();
    expect(all.usage.completion_tokens).toBe(3);
  });

  it('makes two tool calls in one turn when two tools are offered, one with parallel_tool_calls false', async () => {
    const other = {
      type: 'function',
      function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
    };
    const both = await (
      await post('ark', {
        model: 'ep-20250101-doubao-lite',
        tools: [WEATHER_TOOL, other],
        messages: [{ role: 'user', content: 'Weather and time?' }],
      })
    ).json();
    expect(both.choices[0].message.tool_calls.map((c: { function: { name: string } }) => c.function.name)).toEqual([
      'get_weather',
      'get_time',
    ]);
    const one = await (
      await post('ark', {
        model: 'ep-20250101-doubao-lite',
        parallel_tool_calls: false,
        tools: [WEATHER_TOOL, other],
        messages: [{ role: 'user', content: 'Weather and time?' }],
      })
    ).json();
    expect(one.choices[0].message.tool_calls).toHaveLength(1);
  });

  it('sends no usage at all without stream_options', async () => {
    const s = await stream('ark', { max_tokens: 3 });
    expect(s.chunks.every((c) => !('usage' in c))).toBe(true);
    expect(s.chunks[0].choices[0]).toStrictEqual({
      index: 0,
      delta: { role: 'assistant', content: '' },
      finish_reason: null,
      logprobs: null,
    });
    expect(s.data.at(-1)).toBe('[DONE]');
  });

  it('adds a final choices:[] chunk with usage for include_usage, and usage:null elsewhere', async () => {
    const s = await stream('ark', { max_tokens: 3, stream_options: { include_usage: true } });
    const last = s.chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
    for (const c of s.chunks.slice(0, -1)) expect(c.usage).toBeNull();
    expect(s.chunks.at(-2).choices[0]).toStrictEqual({ index: 0, delta: {}, finish_reason: 'length', logprobs: null });
  });

  it('carries cumulative usage on every chunk for chunk_include_usage', async () => {
    const s = await stream('ark', { max_tokens: 3, stream_options: { chunk_include_usage: true } });
    expect(s.chunks.map((c) => c.usage.completion_tokens)).toEqual([0, 1, 2, 3, 3]);
  });

  it('answers 404 for an endpoint id that does not exist, naming it', async () => {
    const res = await post('ark', { model: 'ep-20250101-missing', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(404);
    expect(await res.json()).toStrictEqual({
      error: {
        code: 'InvalidEndpointOrModel.NotFound',
        message: expect.stringMatching(
          /^The model or endpoint ep-20250101-missing does not exist or you do not have access to it\. Request id: 0217\w+$/,
        ),
        param: '',
        type: 'NotFound',
      },
    });
    expect(
      (await post('ark', { model: 'doubao-seed-1-6-251015', messages: [{ role: 'user', content: 'hi' }] })).status,
    ).toBe(200);
  });

  it('names the parameter of an out-of-range temperature', async () => {
    const res = await ask('ark', { temperature: 2.5 });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      code: 'InvalidParameter',
      param: 'temperature',
      type: 'BadRequest',
    });
    expect((await ask('ark', { temperature: 1.8 })).status).toBe(200);
  });

  it('ignores a marker it has no finish reason for', async () => {
    const body = await (await ask('ark', {}, 'Go [[network_error]]')).json();
    expect(body.choices[0].finish_reason).toBe('stop');
  });
});

describe('deepseek stream layout and rules', () => {
  it('starts a stream with a keep-alive comment and repeats it every 10 data events', async () => {
    const s = await stream('deepseek', { max_tokens: 20, stream_options: { include_usage: true } });
    expect(s.raw.startsWith(': keep-alive\n\ndata: ')).toBe(true);
    // role chunk + 20 tokens + finish + usage chunk + [DONE] = 24 data events → comments after the 10th and 20th too.
    expect(s.data).toHaveLength(24);
    expect(s.comments).toEqual(['keep-alive', 'keep-alive', 'keep-alive']);
    const events = s.raw.split('\n\n');
    expect(events[11]).toBe(': keep-alive');
    expect(events[22]).toBe(': keep-alive');
    expect(s.chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
    });
    for (const c of s.chunks) expect(c.system_fingerprint).toMatch(/^fp_/);
  });

  it('starts a non-streaming body with an empty keep-alive line', async () => {
    const { text } = await readRaw(await ask('deepseek'));
    expect(text.startsWith('\n{')).toBe(true);
    expect(JSON.parse(text).object).toBe('chat.completion');
  });

  it('answers 422 to an out-of-range temperature and 400 Invalid Format to malformed JSON', async () => {
    const hot = await ask('deepseek', { temperature: 2.5 });
    expect(hot.status).toBe(422);
    expect((await hot.json()).error.message).toMatch(/^Invalid Parameters/);
    const broken = await post('deepseek', '{"model": "deepseek-flash",');
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.message).toMatch(/^Invalid Format/);
  });

  it('streams reasoning_content before content by default, and not with thinking disabled', async () => {
    const kindsOf = async (extra: Record<string, unknown>) => {
      const res = await post('deepseek', {
        model: 'deepseek-flash',
        stream: true,
        messages: [{ role: 'user', content: 'Why?' }],
        ...extra,
      });
      const s = parseSse((await readRaw(res)).text);
      return s.chunks
        .map((c) => (c.choices[0]?.delta.reasoning_content ? 'r' : c.choices[0]?.delta.content ? 'c' : '-'))
        .join('');
    };
    expect(await kindsOf({})).toMatch(/^-r{10,30}c{20,80}-$/);
    expect(await kindsOf({ thinking: { type: 'disabled' } })).toMatch(/^-c{20,80}-$/);
    // "max" reasons twice as long as the default "high"; "low" half as long.
    const lengths = await Promise.all(
      ['low', 'high', 'max'].map(async (e) => (await kindsOf({ reasoning_effort: e })).split('r').length - 1),
    );
    expect(lengths[0]).toBeLessThan(lengths[1]);
    expect(lengths[2]).toBeGreaterThan(lengths[1]);
  });

  it('refuses the retired deepseek-chat and deepseek-reasoner as it refuses any unknown model, and serves deepseek-v4-flash as deepseek-flash', async () => {
    for (const model of ['deepseek-chat', 'deepseek-reasoner', 'deepseek-coder']) {
      const res = await post('deepseek', { model, messages: [{ role: 'user', content: 'hi' }] });
      expect([res.status, (await res.json()).error.message]).toEqual([400, 'Model Not Exist']);
    }
    expect(
      (await post('deepseek', { model: 'deepseek-v4-flash', messages: [{ role: 'user', content: 'hi' }] })).status,
    ).toBe(200);
  });

  it('while thinking: refuses a forced tool_choice, and a tool-call turn sent back without its reasoning_content', async () => {
    const tools = [WEATHER_TOOL];
    const forced = await post('deepseek', {
      model: 'deepseek-flash',
      tools,
      tool_choice: 'required',
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    expect([forced.status, (await forced.json()).error.message]).toEqual([
      400,
      'Thinking mode does not support this tool_choice',
    ]);
    const off = await post('deepseek', {
      model: 'deepseek-flash',
      tools,
      tool_choice: 'required',
      thinking: { type: 'disabled' },
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    expect(off.status).toBe(200);

    const first = await (
      await post('deepseek', {
        model: 'deepseek-flash',
        tools,
        messages: [{ role: 'user', content: 'Weather in Berlin?' }],
      })
    ).json();
    const { message } = first.choices[0];
    expect(message.reasoning_content.length).toBeGreaterThan(0);
    const history = (turn: Record<string, unknown>) => [
      { role: 'user', content: 'Weather in Berlin?' },
      { role: 'assistant', content: null, tool_calls: message.tool_calls, ...turn },
      { role: 'tool', tool_call_id: message.tool_calls[0].id, content: '{"temperature": 3}' },
    ];
    const without = await post('deepseek', { model: 'deepseek-flash', tools, messages: history({}) });
    expect([without.status, await without.json()]).toEqual([
      400,
      {
        error: {
          message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_request_error',
        },
      },
    ]);
    const withIt = await post('deepseek', {
      model: 'deepseek-flash',
      tools,
      messages: history({ reasoning_content: message.reasoning_content }),
    });
    expect(withIt.status).toBe(200);
  });

  it('answers JSON for json_object only when the prompt says json, and reports a repeated prefix as cached', async () => {
    const bare = await post('deepseek', {
      model: 'deepseek-flash',
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'Give me a thing' }],
    });
    expect(bare.status).toBe(400);
    const long = `Answer in JSON. ${'Context sentence for caching. '.repeat(40)}`;
    const ok = await (
      await post('deepseek', {
        model: 'deepseek-flash',
        response_format: { type: 'json_object' },
        messages: [{ role: 'user', content: long }],
      })
    ).json();
    expect(JSON.parse(ok.choices[0].message.content)).toEqual({ answer: expect.any(String) });
    expect(ok.usage).toMatchObject({ prompt_cache_hit_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } });
    const again = await (
      await post('deepseek', {
        model: 'deepseek-flash',
        messages: [
          { role: 'user', content: long },
          { role: 'assistant', content: 'Noted.' },
          { role: 'user', content: 'And?' },
        ],
      })
    ).json();
    const hit = again.usage.prompt_cache_hit_tokens;
    expect(hit % 64).toBe(0);
    expect(hit).toBeGreaterThan(0);
    expect(again.usage).toMatchObject({
      prompt_tokens_details: { cached_tokens: hit },
      prompt_cache_miss_tokens: again.usage.prompt_tokens - hit,
    });
  });

  it('limits concurrency, not requests per minute', async () => {
    await control('POST', '/_sandbox/config', { chatConcurrency: { deepseek: 2 }, chatTokenDelayMs: 20 });
    const statuses = await Promise.all(
      Array.from({ length: 3 }, () => ask('deepseek', { max_tokens: 3 }).then(async (r) => (await r.text(), r.status))),
    );
    expect(statuses.sort()).toEqual([200, 200, 429]);
    const later = await ask('deepseek', { max_tokens: 1 });
    expect(later.status).toBe(200);
    await control('POST', '/_sandbox/config', { chatConcurrency: { deepseek: 500 }, chatTokenDelayMs: 0 });
  });

  it('reaches insufficient_system_resource with [[network_error]]', async () => {
    const body = await (await ask('deepseek', {}, 'Busy? [[network_error]]')).json();
    expect(body.choices[0].finish_reason).toBe('insufficient_system_resource');
  });

  it('answers an injected 402 with Insufficient Balance', async () => {
    await control('POST', '/_sandbox/faults', { upstream: 'deepseek', status: 402 });
    const res = await ask('deepseek');
    expect(res.status).toBe(402);
    expect((await res.json()).error).toMatchObject({ message: 'Insufficient Balance', type: 'unknown_error' });
  });
});

describe('moonshot stream layout and rules', () => {
  it('puts usage inside choices[0] of the last chunk, null finish_reason before it, and a system fingerprint on every chunk', async () => {
    const s = await stream('moonshot', { max_tokens: 3 });
    expect(s.data.at(-1)).toBe('[DONE]');
    for (const c of s.chunks) {
      expect(c).toMatchObject({ object: 'chat.completion.chunk', system_fingerprint: 'fpv0_ca1d2527' });
      expect(c).not.toHaveProperty('usage');
    }
    for (const c of s.chunks.slice(0, -1)) {
      expect(c.choices[0].finish_reason).toBeNull();
      expect(c.choices[0]).not.toHaveProperty('usage');
    }
    expect(s.chunks.at(-1).choices[0]).toStrictEqual({
      index: 0,
      delta: {},
      finish_reason: 'length',
      usage: { cached_tokens: 0, prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    });
  });

  it('refuses temperature above 1 and n above 5, and makes n choices otherwise', async () => {
    for (const extra of [{ temperature: 1.2 }, { n: 6 }]) {
      const res = await ask('moonshot', extra);
      expect(res.status).toBe(400);
      expect((await res.json()).error.type).toBe('invalid_request_error');
    }
    const body = await (await ask('moonshot', { n: 3 })).json();
    expect(body.choices.map((c: { index: number }) => c.index)).toEqual([0, 1, 2]);
    expect(new Set(body.choices.map((c: { message: { content: string } }) => c.message.content)).size).toBe(3);
  });

  it('lists its models with their window, images and reasoning, and no longer serves kimi-latest', async () => {
    const list = await (
      await fetch(`${sandbox.baseUrls.moonshot}/models`, { headers: { authorization: 'Bearer sandbox' } })
    ).json();
    expect(list.data.find((m: { id: string }) => m.id === 'kimi-k2.6')).toMatchObject({
      context_length: 262144,
      supports_image_in: true,
      supports_reasoning: true,
    });
    const gone = await post('moonshot', { model: 'kimi-latest', messages: [{ role: 'user', content: 'hi' }] });
    expect([gone.status, (await gone.json()).error.type]).toEqual([404, 'resource_not_found_error']);
  });

  it('kimi-k2.6 while thinking: fixed temperature, no forced tool_choice, reasoning_content on tool-call turns', async () => {
    const say = (extra: Record<string, unknown>, messages: unknown[] = [{ role: 'user', content: 'Weather?' }]) =>
      post('moonshot', { model: 'kimi-k2.6', messages, ...extra });
    const cold = await say({ temperature: 0.3 });
    expect([cold.status, (await cold.json()).error]).toEqual([
      400,
      { type: 'invalid_request_error', message: 'invalid temperature: only 1 is allowed for this model' },
    ]);
    expect((await say({ temperature: 0.6, thinking: { type: 'disabled' } })).status).toBe(200);
    const named = await say({
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect((await named.json()).error.message).toBe("tool_choice 'specified' is incompatible with thinking enabled");
    const history: Array<Record<string, unknown>> = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{}' },
    ];
    const missing = await say({ tools: [WEATHER_TOOL] }, history);
    expect((await missing.json()).error.message).toBe(
      'thinking is enabled but reasoning_content is missing in assistant tool call message at index 1',
    );
    history[1] = { ...history[1], reasoning_content: 'I should look it up.' };
    expect((await say({ tools: [WEATHER_TOOL] }, history)).status).toBe(200);
  });

  it('sends retry-after and X-RateLimit headers with its 429', async () => {
    await control('POST', '/_sandbox/config', { chatRpm: { moonshot: 1 } });
    const ok = await ask('moonshot');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await ask('moonshot');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('1');
    expect((await limited.json()).error.message).toMatch(
      /request reached max request: 1, please try again after \d+ seconds/,
    );
  });
});

describe('pacing', () => {
  it('spaces stream events chatTokenDelayMs apart', async () => {
    await control('POST', '/_sandbox/config', { chatTokenDelayMs: 25 });
    const started = Date.now();
    const s = await stream('moonshot', { max_tokens: 8 });
    // role + 8 tokens + finish + [DONE] = 11 events, 10 gaps.
    expect(s.data).toHaveLength(11);
    expect(Date.now() - started).toBeGreaterThanOrEqual(10 * 25 * 0.9);
  });
});

describe('as strict as the services (the 2026-11-28 audit, docs/upstreams.md §3.6)', () => {
  const hi = [{ role: 'user', content: 'Hi' }];
  const status = async (provider: Provider, body: Record<string, unknown>) => {
    const res = await post(provider, body);
    return { status: res.status, body: (await res.json()) as any };
  };

  it('takes thinking.type auto on Ark only', async () => {
    expect(
      (await status('ark', { model: 'ep-20250101-doubao-pro', messages: hi, thinking: { type: 'auto' } })).status,
    ).toBe(200);
    for (const [provider, model] of [
      ['glm', 'glm-5.2'],
      ['deepseek', 'deepseek-flash'],
      ['moonshot', 'kimi-k2.6'],
    ] as const) {
      const { status: code, body } = await status(provider, { model, messages: hi, thinking: { type: 'auto' } });
      expect([provider, code]).toEqual([provider, 400]);
      expect(JSON.stringify(body)).toContain('thinking.type must be enabled or disabled, got \\"auto\\"');
    }
  });

  it("Kimi: K2.7-Code and K3.1 Pro always reason (a disabled switch is a 400), K3's effort is low, high or max, never beside thinking", async () => {
    for (const model of ['kimi-k2.7-code', 'kimi-k3.1-pro']) {
      const { status: code, body } = await status('moonshot', { model, messages: hi, thinking: { type: 'disabled' } });
      expect([model, code, body.error.type]).toEqual([model, 400, 'invalid_request_error']);
      expect(body.error.message).toBe(`Invalid request: thinking cannot be disabled for model ${model}`);
    }
    expect((await status('moonshot', { model: 'kimi-k3.1-pro', messages: hi, reasoning_effort: 'max' })).status).toBe(
      200,
    );
    expect(
      (await status('moonshot', { model: 'kimi-k3', messages: hi, reasoning_effort: 'medium' })).body.error.message,
    ).toBe('Invalid request: reasoning_effort must be one of low, high, max, got "medium"');
    expect(
      (
        await status('moonshot', {
          model: 'kimi-k3',
          messages: hi,
          reasoning_effort: 'low',
          thinking: { type: 'enabled' },
        })
      ).body.error.message,
    ).toBe("Invalid request: cannot specify both 'thinking' and 'reasoning_effort'");
  });

  it('Ark: effort minimal, low, medium or high (no max), and only minimal with thinking disabled; dated ids of hosted models', async () => {
    const ark = (extra: Record<string, unknown>) =>
      status('ark', { model: 'doubao-seed-1-6-251015', messages: hi, ...extra });
    expect((await ark({ reasoning_effort: 'high' })).status).toBe(200);
    const max = await ark({ reasoning_effort: 'max' });
    expect([max.status, max.body.error.code, max.body.error.param]).toEqual([
      400,
      'InvalidParameter',
      'reasoning_effort',
    ]);
    expect((await ark({ reasoning_effort: 'low', thinking: { type: 'disabled' } })).body.error.message).toContain(
      'with thinking.type disabled only "minimal" is allowed',
    );
    expect((await ark({ reasoning_effort: 'minimal', thinking: { type: 'disabled' } })).status).toBe(200);
    expect((await status('ark', { model: 'deepseek-v3-2-251201', messages: hi })).status).toBe(200);
  });

  it('GLM: GLM-5.3 reasons whatever the switch says, 5.3-Flash takes images, the documented effort set, one stop word, user_id of 6–128', async () => {
    const glm = (extra: Record<string, unknown>, model = 'glm-5.2') => status('glm', { model, messages: hi, ...extra });
    const off = await glm({ thinking: { type: 'disabled' } }, 'glm-5.3');
    expect(off.status).toBe(200);
    expect(off.body.choices[0].message.reasoning_content.length).toBeGreaterThan(0);
    const image = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is it?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ];
    expect((await status('glm', { model: 'glm-5.3-flash', messages: image })).status).toBe(200);
    for (const effort of ['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'])
      expect([effort, (await glm({ reasoning_effort: effort })).status]).toEqual([effort, 200]);
    expect((await glm({ reasoning_effort: 'none' })).body.choices[0].message.reasoning_content ?? null).toBeNull();
    expect((await glm({ stop: ['a', 'b'] })).body.error).toEqual({
      code: '1210',
      message: 'API 调用参数有误，请检查文档。stop supports only one stop word',
    });
    expect((await glm({ stop: ['a'] })).status).toBe(200);
    expect((await glm({ user_id: 'abc' })).body.error.message).toContain('user_id must be 6 to 128 characters');
    expect((await glm({ user_id: 'x'.repeat(129) })).status).toBe(400);
    expect((await glm({ user_id: 'abcdef' })).status).toBe(200);
  });

  it('DeepSeek: "json" in a system or user message only, user_id of at most 512 of [A-Za-z0-9_-], max_completion_tokens ignored, the vision-exp alias', async () => {
    const ds = (extra: Record<string, unknown>, messages: unknown[] = hi) =>
      status('deepseek', { model: 'deepseek-flash', messages, thinking: { type: 'disabled' }, ...extra });
    const json = { response_format: { type: 'json_object' } };
    const inAssistant = await ds(json, [
      { role: 'user', content: 'Give me a city.' },
      { role: 'assistant', content: 'As json?' },
      { role: 'user', content: 'Yes.' },
    ]);
    expect([inAssistant.status, inAssistant.body.error.message]).toEqual([
      400,
      "Prompt must contain the word 'json' in some form to use 'response_format' of type 'json_object'.",
    ]);
    expect(
      (
        await ds(json, [
          { role: 'system', content: 'Answer in JSON.' },
          { role: 'user', content: 'A city.' },
        ])
      ).status,
    ).toBe(200);
    expect((await ds({ user_id: 'u'.repeat(513) })).status).toBe(400);
    expect((await ds({ user_id: 'user 1' })).status).toBe(400);
    expect((await ds({ user_id: 'u'.repeat(512) })).status).toBe(200);
    const capped = await ds({ max_completion_tokens: 2 }, [
      { role: 'user', content: 'Tell me about gateways in detail.' },
    ]);
    expect(capped.body.choices[0].finish_reason).toBe('stop');
    expect(capped.body.usage.completion_tokens).toBeGreaterThan(2);
    expect((await ds({ max_tokens: 2 })).body.choices[0].finish_reason).toBe('length');
    expect((await status('deepseek', { model: 'deepseek-v4-flash-vision-exp', messages: hi })).status).toBe(200);
  });
});
