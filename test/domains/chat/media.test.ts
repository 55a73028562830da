import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

const EMBED = `mutation Embed($input: CreateEmbeddingsInput!) { createEmbeddings(input: $input) { provider model requests data { index embedding } usage { promptTokens totalTokens } } }`;
const IMAGE = `mutation Image($input: GenerateImageInput!) { generateImage(input: $input) { provider model created images { url b64Json size } contentFilter { role level } usage { generatedImages outputTokens totalTokens } } }`;

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t?.close());
beforeEach(() => {
  t.clearUpstreamRequests();
  t.sandbox.faults.clear();
});

const texts = (n: number) => Array.from({ length: n }, (_, i) => `text number ${i}`);
const bodies = (upstream: string) =>
  t.upstreamRequests(upstream).map((r) => ({ url: r.url, body: JSON.parse(r.body) }));

describe('createEmbeddings', () => {
  it('sends 100 texts to GLM embedding-3 (64 per call) as exactly 2 requests, and answers them in order', async () => {
    const { body } = await t.query(EMBED, {
      input: { provider: 'glm', model: 'embedding-3', input: texts(100), dimensions: 256 },
    });
    expect(body.errors).toBeUndefined();
    expect(bodies('glm')).toEqual([
      {
        url: '/glm/api/paas/v4/embeddings',
        body: { model: 'embedding-3', input: texts(100).slice(0, 64), dimensions: 256 },
      },
      {
        url: '/glm/api/paas/v4/embeddings',
        body: { model: 'embedding-3', input: texts(100).slice(64), dimensions: 256 },
      },
    ]);
    const result = body.data!.createEmbeddings;
    expect(result).toMatchObject({ provider: 'glm', model: 'embedding-3', requests: 2 });
    expect(result.data.map((d: { index: number }) => d.index)).toEqual([...Array(100).keys()]);
    expect(result.data.every((d: { embedding: number[] }) => d.embedding.length === 256)).toBe(true);
    expect(result.usage.promptTokens).toBe(300);
    // The same text gives the same vector, wherever it sits.
    const again = await t.query(EMBED, {
      input: { provider: 'glm', model: 'embedding-3', input: ['text number 70'], dimensions: 256 },
    });
    expect(again.body.data!.createEmbeddings.data[0].embedding).toEqual(result.data[70].embedding);
  });

  it('embeds on an Ark embedding endpoint from ARK_ENDPOINTS, by its name', async () => {
    const { body } = await t.query(EMBED, {
      input: { provider: 'ark', model: 'doubao-embedding', input: ['天很蓝', '海很深'] },
    });
    expect(body.data!.createEmbeddings).toMatchObject({ provider: 'ark', model: 'doubao-embedding', requests: 1 });
    expect(body.data!.createEmbeddings.data[0].embedding).toHaveLength(2560);
    expect(bodies('ark')).toEqual([
      { url: '/ark/api/v3/embeddings', body: { model: 'ep-20250101-doubao-embedding', input: ['天很蓝', '海很深'] } },
    ]);
  });

  it('counts embedding tokens in chatUsage', async () => {
    await t.query(EMBED, { input: { provider: 'glm', model: 'embedding-2', input: ['one two three'] } });
    const { body } = await t.query('{ chatUsage { provider model promptTokens totalTokens requests } }');
    expect(body.data!.chatUsage).toContainEqual({
      provider: 'glm',
      model: 'embedding-2',
      promptTokens: 3,
      totalTokens: 3,
      requests: 1,
    });
    expect(JSON.parse(t.upstreamRequests('glm')[0].body)).toEqual({ model: 'embedding-2', input: ['one two three'] });
  });

  it.each([
    [
      { provider: 'deepseek', model: 'deepseek-flash', input: ['a'] },
      'Provider deepseek offers no embeddings; use glm or ark.',
    ],
    [{ provider: 'moonshot', model: 'x', input: ['a'] }, 'Provider moonshot offers no embeddings; use glm or ark.'],
    [
      { provider: 'glm', model: 'glm-4-flash', input: ['a'] },
      'Provider glm has no embeddings model "glm-4-flash"; use embedding-3, embedding-2.',
    ],
    [{ provider: 'glm', model: 'embedding-3', input: [] }, 'input is empty'],
    [{ provider: 'glm', model: 'embedding-3', input: ['a', ' '] }, 'input[1] is empty'],
    [
      { provider: 'glm', model: 'embedding-3', input: ['a'], dimensions: 300 },
      'dimensions 300 is not offered by embedding-3; use 256, 512, 1024, 2048.',
    ],
    [{ provider: 'glm', model: 'embedding-3', input: texts(2049) }, 'input has 2049 texts; at most 2048'],
  ])('refuses %o with no upstream request', async (input, message) => {
    const { body } = await t.query(EMBED, { input });
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toContain(message);
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});

describe('generateImage', () => {
  it('GLM CogView: one URL per call, n calls for n images, the URL serves the image', async () => {
    const { body } = await t.query(IMAGE, {
      input: { provider: 'glm', model: 'cogview-4', prompt: 'A red fox in snow', size: '1024x1024', n: 2 },
    });
    expect(body.errors).toBeUndefined();
    const result = body.data!.generateImage;
    expect(result).toMatchObject({ provider: 'glm', model: 'cogview-4', contentFilter: [], usage: null });
    expect(result.images).toHaveLength(2);
    expect(bodies('glm')).toEqual(
      Array(2).fill({
        url: '/glm/api/paas/v4/images/generations',
        body: { model: 'cogview-4', prompt: 'A red fox in snow', size: '1024x1024' },
      }),
    );
    const image = await fetch(result.images[0].url);
    expect([image.status, image.headers.get('content-type')]).toEqual([200, 'image/png']);
  });

  it("GLM: passes on the provider's moderation notes", async () => {
    const { body } = await t.query(IMAGE, {
      input: { provider: 'glm', model: 'cogview-3-flash', prompt: 'A duel at dawn [[borderline]]' },
    });
    expect(body.data!.generateImage.contentFilter).toEqual([{ role: 'user', level: 2 }]);
  });

  it('Ark Seedream: base64 when asked, with size and token usage', async () => {
    const { body } = await t.query(IMAGE, {
      input: {
        provider: 'ark',
        model: 'doubao-seedream',
        prompt: 'A lighthouse',
        size: '2K',
        responseFormat: 'B64_JSON',
      },
    });
    const result = body.data!.generateImage;
    expect(result.images).toEqual([{ url: null, b64Json: expect.stringMatching(/^iVBOR/), size: '2048x2048' }]);
    expect(result.usage).toEqual({ generatedImages: 1, outputTokens: 16384, totalTokens: 16384 });
    expect(bodies('ark')).toEqual([
      {
        url: '/ark/api/v3/images/generations',
        body: { model: 'ep-20250101-doubao-seedream', prompt: 'A lighthouse', size: '2K', response_format: 'b64_json' },
      },
    ]);
  });

  it.each([
    ['glm', 'cogview-4', '1301'],
    ['ark', 'doubao-seedream', 'InputTextSensitiveContentDetected'],
  ])('%s: an unsafe prompt is BAD_USER_INPUT with the provider code', async (provider, model, upstreamCode) => {
    const { body } = await t.query(IMAGE, { input: { provider, model, prompt: 'Something [[sensitive]]' } });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: provider,
      status: 400,
      upstreamCode,
    });
  });

  it.each([
    [
      { provider: 'deepseek', model: 'x', prompt: 'p' },
      'Provider deepseek offers no image generation; use glm or ark.',
    ],
    [
      { provider: 'glm', model: 'cogview-4', prompt: 'p', responseFormat: 'B64_JSON' },
      'glm answers image URLs only; leave responseFormat at URL.',
    ],
    [
      { provider: 'glm', model: 'cogview-4', prompt: 'p', size: '1000x1000' },
      'size "1000x1000" is not one cogview-4 makes; use WIDTHxHEIGHT with each side 512..2048 and a multiple of 16',
    ],
    [{ provider: 'ark', model: 'doubao-seedream', prompt: 'p', n: 5 }, 'n 5 is outside 1..4.'],
    [{ provider: 'glm', model: 'cogview-4', prompt: '  ' }, 'prompt is empty'],
  ])('refuses %o with no upstream request', async (input, message) => {
    const { body } = await t.query(IMAGE, { input });
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toContain(message);
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});
