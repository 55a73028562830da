import { completionTokens, type GeneratedChoice } from './generator.js';
import type { ChatProvider, UsageCounts } from './provider.js';
import type { ChatRequest } from './chatRequest.js';
import type { SseEvent } from './wire.js';

/** The fields every body and chunk of one answer shares. */
export interface AnswerMeta {
  id: string;
  created: number;
  model: string;
}

export function totalUsage(choices: readonly GeneratedChoice[], promptTokens: number, cached = 0): UsageCounts {
  return {
    prompt: promptTokens,
    cached,
    completion: choices.reduce((n, c) => n + completionTokens(c), 0),
    reasoning: choices.reduce((n, c) => n + c.reasoning.length, 0),
  };
}

function head(p: ChatProvider, meta: AnswerMeta, object: string): Record<string, unknown> {
  return {
    id: meta.id,
    ...(p.shape.object ? { object } : {}),
    created: meta.created,
    model: meta.model,
    ...(p.shape.systemFingerprint ? { system_fingerprint: p.shape.systemFingerprint } : {}),
    ...(p.shape.serviceTier ? { service_tier: p.shape.serviceTier } : {}),
  };
}

function finishReason(p: ChatProvider, c: GeneratedChoice): string {
  return p.finishReasons[c.cause] ?? 'stop';
}

/** The non-streaming body. */
export function completionBody(
  p: ChatProvider,
  meta: AnswerMeta,
  choices: readonly GeneratedChoice[],
  promptTokens: number,
  cached = 0,
): unknown {
  return {
    ...head(p, meta, 'chat.completion'),
    ...(p.shape.requestIdField ? { request_id: meta.id } : {}),
    choices: choices.map((c, index) => ({
      index,
      message: {
        role: 'assistant',
        content: c.toolCalls ? null : c.content.join(''),
        ...(c.reasoning.length ? { reasoning_content: c.reasoning.join('') } : {}),
        ...(c.toolCalls
          ? {
              tool_calls: c.toolCalls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      },
      ...(p.shape.logprobsNull ? { logprobs: null } : {}),
      finish_reason: finishReason(p, c),
    })),
    usage: p.usage(totalUsage(choices, promptTokens, cached)),
  };
}

/**
 * Stands for a padded token's padding (`[[long:N:B]]`) while its chunk is serialized: JSON.stringify would scan the
 * 16 KiB of `~` again for every event (a load test's 30,000 events: ~1.4 s of CPU), which need no escaping.
 */
const PAD = '\u0000';
const PAD_JSON = JSON.stringify(PAD).slice(1, -1);

/**
 * The whole stream as events, in order; the writer paces them. One token per event. Made as the writer asks for
 * them, so a `[[long:N]]` answer never sits in memory as N serialized events.
 */
export function* streamEvents(
  p: ChatProvider,
  req: ChatRequest,
  meta: AnswerMeta,
  choices: readonly GeneratedChoice[],
  promptTokens: number,
  cached = 0,
): Generator<SseEvent> {
  const { shape } = p;
  const placement = shape.usagePlacement(req);
  const total = totalUsage(choices, promptTokens, cached);
  let events: SseEvent[] = [];
  const sofar: UsageCounts = { prompt: promptTokens, completion: 0, reasoning: 0, cached };
  let dataEvents = 0;
  if (shape.keepAliveEvery) events.push({ comment: 'keep-alive' });
  /** The events made since the last call. */
  const made = () => {
    const out = events;
    events = [];
    return out;
  };

  /** `padding`: that many `~` in place of {@link PAD}, which the body holds once, at the end of its content. */
  const push = (body: unknown, padding = 0) => {
    let data = JSON.stringify(body);
    if (padding) {
      const at = data.lastIndexOf(PAD_JSON);
      data = data.slice(0, at) + '~'.repeat(padding) + data.slice(at + PAD_JSON.length);
    }
    events.push({ data });
    dataEvents += 1;
    if (shape.keepAliveEvery && dataEvents % shape.keepAliveEvery === 0) events.push({ comment: 'keep-alive' });
  };
  const chunk = (choice: Record<string, unknown> | undefined, usage?: 'top' | 'choice', padding = 0) => {
    const body: Record<string, unknown> = {
      ...head(p, meta, 'chat.completion.chunk'),
      choices: choice ? [choice] : [],
    };
    if (usage === 'choice' && choice) choice.usage = p.usage(total);
    if (usage === 'top') body.usage = p.usage(total);
    else if (placement.everyChunk) body.usage = p.usage(sofar);
    else if (placement.nullElsewhere) body.usage = null;
    push(body, padding);
  };
  const delta = (index: number, d: Record<string, unknown>, finish?: string): Record<string, unknown> => {
    const out: Record<string, unknown> = { index, delta: shape.roleInEveryDelta ? { role: 'assistant', ...d } : d };
    if (finish !== undefined) out.finish_reason = finish;
    else if (!shape.omitNullFinishReason) out.finish_reason = null;
    if (shape.logprobsNull) out.logprobs = null;
    return out;
  };
  const token = (field: 'reasoning' | 'completion') => {
    sofar.completion += 1;
    if (field === 'reasoning') sofar.reasoning += 1;
  };

  for (const [index, c] of choices.entries()) {
    if (!shape.roleInEveryDelta) chunk(delta(index, { role: 'assistant', content: '' }));
    for (const t of c.reasoning) {
      token('reasoning');
      chunk(delta(index, { reasoning_content: t }));
      yield* made();
    }
    for (const t of c.content) {
      token('completion');
      const padding = c.tokenLength ? Math.max(0, c.tokenLength - t.length) : 0;
      chunk(delta(index, { content: padding ? t + PAD : t }), undefined, padding);
      yield* made();
    }
    if (c.cause === 'error' && shape.inBandError) {
      push(shape.inBandError(meta.id));
      yield* made();
      return; // the provider gives up mid-stream: no finish chunk, no [DONE]
    }
    const streamed = shape.streamsToolArguments?.(req) ?? true;
    for (const [n, call] of (c.toolCalls ?? []).entries()) {
      const { id, name, fragments } = call;
      chunk(
        delta(index, {
          tool_calls: [
            { index: n, id, type: 'function', function: { name, arguments: streamed ? '' : fragments.join('') } },
          ],
        }),
      );
      if (streamed) {
        for (const f of fragments) {
          token('completion');
          chunk(delta(index, { tool_calls: [{ index: n, function: { arguments: f } }] }));
        }
      } else sofar.completion += fragments.length;
    }
    const last = index === choices.length - 1;
    chunk(
      delta(index, shape.roleInEveryDelta ? { content: '' } : {}, finishReason(p, c)),
      last ? placement.last : undefined,
    );
  }
  if (placement.extraChunk) {
    push({ ...head(p, meta, 'chat.completion.chunk'), choices: [], usage: p.usage(total) });
  }
  events.push({ data: '[DONE]' });
  yield* made();
}
