import { badInput } from '../../errors/codes.js';
import type {
  CreateEmbeddingsInput,
  EmbeddingResult,
  GenerateImageInput,
  ImageGeneration,
} from '../../generated/types.js';
import type { GatewayContext } from '../../context/request.js';
import type { ChatClient } from '../../upstreams/chat/client.js';
import { embed, generateImages } from '../../upstreams/chat/media.js';
import type { ChatProviderSpec } from '../../upstreams/chat/provider.js';

/** Embeddings and images: checked before any call, counted in the same books and budgets as completions. */

export const MAX_EMBEDDING_INPUTS = 2048;
export const MAX_IMAGES = 4;

type Kind = 'embeddings' | 'images';
const WHAT: Record<Kind, string> = { embeddings: 'embeddings', images: 'image generation' };

function clientFor(ctx: GatewayContext, provider: string, kind: Kind): ChatClient {
  const clients = ctx.services.clients.chat;
  const serving = [...clients.values()].filter((c) => c.spec[kind]).map((c) => c.spec.id);
  const client = clients.get(provider);
  if (!client)
    throw badInput(
      `Unknown chat provider ${JSON.stringify(provider)}; ${WHAT[kind]} is served by ${serving.join(', ')}.`,
      'input.provider',
    );
  if (!client.spec[kind])
    throw badInput(`Provider ${provider} offers no ${WHAT[kind]}; use ${serving.join(' or ')}.`, 'input.provider');
  return client;
}

function modelFor<M extends { id: string; upstreamModel?: string }>(
  spec: ChatProviderSpec,
  table: { models: M[]; raw?(m: string): M | undefined },
  name: string,
  kind: Kind,
): M {
  const model =
    table.models.find((m) => m.id === name) ?? table.models.find((m) => m.upstreamModel === name) ?? table.raw?.(name);
  if (model) return model;
  const names = table.models.map((m) => m.id);
  const raw = table.raw ? ' (or an endpoint id ep-…)' : '';
  throw badInput(
    `Provider ${spec.id} has no ${WHAT[kind]} model ${JSON.stringify(name)}; use ${names.join(', ') || '(none configured in ARK_ENDPOINTS)'}${raw}.`,
    'input.model',
  );
}

export async function createEmbeddings(input: CreateEmbeddingsInput, ctx: GatewayContext): Promise<EmbeddingResult> {
  const client = clientFor(ctx, input.provider, 'embeddings');
  const model = modelFor(client.spec, client.spec.embeddings!, input.model, 'embeddings');
  if (input.input.length === 0) throw badInput('input is empty; give at least one text.', 'input.input');
  if (input.input.length > MAX_EMBEDDING_INPUTS)
    throw badInput(
      `input has ${input.input.length} texts; at most ${MAX_EMBEDDING_INPUTS} per call to the gateway.`,
      'input.input',
    );
  const empty = input.input.findIndex((t) => t.trim() === '');
  if (empty !== -1) throw badInput(`input[${empty}] is empty; every text needs content.`, `input.input[${empty}]`);
  if (input.dimensions != null && model.dimensions && !model.dimensions.includes(input.dimensions)) {
    throw badInput(
      `dimensions ${input.dimensions} is not offered by ${model.id}; use ${model.dimensions.join(', ')}.`,
      'input.dimensions',
    );
  }
  const ledger = ctx.services.domains.chatUsage;
  await ledger.ensureBudget(client.spec.id, ctx);
  const result = await embed(client, model, input.input, input.dimensions ?? undefined, ctx);
  await ledger.record(
    client.spec.id,
    model.id,
    { promptTokens: result.usage.promptTokens, totalTokens: result.usage.totalTokens },
    ctx,
  );
  ledger.attempt(client.spec.id, model.id, 'served');
  return { provider: client.spec.id, model: model.id, ...result };
}

export async function generateImage(input: GenerateImageInput, ctx: GatewayContext): Promise<ImageGeneration> {
  const client = clientFor(ctx, input.provider, 'images');
  const model = modelFor(client.spec, client.spec.images!, input.model, 'images');
  if (!input.prompt.trim()) throw badInput('prompt is empty; describe the image.', 'input.prompt');
  if (input.size != null && !model.size.test(input.size))
    throw badInput(
      `size ${JSON.stringify(input.size)} is not one ${model.id} makes; use ${model.size.hint}.`,
      'input.size',
    );
  const n = input.n ?? 1;
  if (!Number.isInteger(n) || n < 1 || n > MAX_IMAGES) throw badInput(`n ${n} is outside 1..${MAX_IMAGES}.`, 'input.n');
  const format = input.responseFormat === 'B64_JSON' ? 'b64_json' : 'url';
  if (!model.formats.includes(format))
    throw badInput(`${client.spec.id} answers image URLs only; leave responseFormat at URL.`, 'input.responseFormat');
  const ledger = ctx.services.domains.chatUsage;
  await ledger.ensureBudget(client.spec.id, ctx);
  const result = await generateImages(
    client,
    model,
    { prompt: input.prompt, size: input.size ?? undefined, n, format },
    ctx,
  );
  // Ark bills images in tokens; GLM per image, which the token books cannot show: its images count as requests only.
  await ledger.record(
    client.spec.id,
    model.id,
    { completionTokens: result.usage?.totalTokens ?? 0, totalTokens: result.usage?.totalTokens ?? 0 },
    ctx,
  );
  ledger.attempt(client.spec.id, model.id, 'served');
  return {
    provider: client.spec.id,
    model: model.id,
    created: result.created,
    images: result.images,
    contentFilter: result.contentFilter,
    usage: result.usage,
  };
}
