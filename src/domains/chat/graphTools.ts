import { badInput, GatewayError } from '../../errors/codes.js';
import type {
  ChatCompletion as GraphCompletion,
  ChatCompletionChunk,
  ChatCompletionInput,
  ChatGraphStep,
  ChatMessageInput,
  ChatToolInput,
} from '../../generated/types.js';
import { checkArguments } from '../../trusted/operations.js';
import type { TrustedToolset } from '../../trusted/toolset.js';
import type { GatewayContext } from '../../context/request.js';
import { eventStream } from '../../execution/eventStream.js';
import type { ChatChunk, ChatToolCall, ChatUsage } from '../../upstreams/chat/types.js';
import { firstServing, type AdmittedTargets, type Attempt } from './fallbacks.js';
import { checkAnswer } from './jsonFormat.js';
import { chunkOf, completionOf, usageOf } from './map.js';
import { openStream, targetsOf, type StreamEvent } from './stream.js';

// Chat with `graphTools`: the model may call trusted operations (the /mcp tools, src/trusted), which the gateway runs
// itself, turn after turn, until the model answers or a bound stops it.

/** Characters of a result shown in `ChatGraphStep.result` (the model gets up to {@link MAX_RESULT_CHARS}). */
const PREVIEW_CHARS = 500;
/** Characters of one operation's result fed back to the model; a longer result is cut (and says so). */
const MAX_RESULT_CHARS = 16_000;

/** A completion's graph tools: the trusted operations offered, as function tools, and its bounds. */
export interface GraphToolPlan {
  toolset: TrustedToolset;
  tools: ChatToolInput[];
  names: ReadonlySet<string>;
  /** Provider requests per completion (CHAT_GRAPH_TOOL_MAX_STEPS). */
  maxSteps: number;
  /** Operations run per completion (CHAT_GRAPH_TOOL_MAX_CALLS). */
  maxCalls: number;
}

/** Checks `graphTools` before anything is sent; undefined when the completion has none. */
export function graphToolPlan(input: ChatCompletionInput, ctx: GatewayContext): GraphToolPlan | undefined {
  if (input.graphTools == null) return undefined;
  if (input.graphTools.length === 0)
    throw badInput(
      'graphTools is empty; name at least one trusted operation, or leave graphTools out.',
      'input.graphTools',
    );
  if (input.tools?.length) {
    throw badInput(
      'graphTools and tools cannot be combined: the gateway runs graph tools itself and would have to hand your tools back mid-loop. Use one of them.',
      'input.tools',
    );
  }
  const toolset = ctx.services.trusted;
  const ops = input.graphTools.map((name, i) => toolset.operations.require(name, `input.graphTools[${i}]`));
  const unique = [...new Map(ops.map((op) => [op.name, op])).values()];
  const { maxSteps, maxCalls } = ctx.services.config.graphTools;
  return {
    toolset,
    tools: unique.map((op) => ({ name: op.name, description: op.description, parameters: op.inputSchema })),
    names: new Set(unique.map((op) => op.name)),
    maxSteps,
    maxCalls,
  };
}

/** The input of the first model turn: what admission checks (admission.ts). */
export const firstTurnInput = (input: ChatCompletionInput, plan: GraphToolPlan) =>
  turnInput(input, plan, input.messages);

/** The input of one model turn: the graph tools offered as function tools, and the conversation so far. */
function turnInput(input: ChatCompletionInput, plan: GraphToolPlan, messages: ChatMessageInput[]): ChatCompletionInput {
  return { ...input, graphTools: null, tools: plan.tools, messages };
}

/** Adds one turn's usage to the total; reasoning and cached tokens stay null when no turn reported them. */
function addUsage(total: ChatUsage | undefined, turn: ChatUsage): ChatUsage {
  if (!total) return { ...turn };
  const sum = (a: number | null | undefined, b: number | null | undefined) =>
    a == null && b == null ? null : (a ?? 0) + (b ?? 0);
  return {
    promptTokens: total.promptTokens + turn.promptTokens,
    completionTokens: total.completionTokens + turn.completionTokens,
    totalTokens: total.totalTokens + turn.totalTokens,
    reasoningTokens: sum(total.reasoningTokens, turn.reasoningTokens),
    cachedPromptTokens: sum(total.cachedPromptTokens, turn.cachedPromptTokens),
  };
}

/**
 * Whether the gateway may run a turn's tool calls: not when this was the last turn allowed, nor when they would pass
 * the call bound. Then the completion ends with finish GRAPH_TOOL_LIMIT and the calls are not run.
 */
function withinBounds(plan: GraphToolPlan, turn: number, callsSoFar: number, calls: readonly ChatToolCall[]): boolean {
  return turn < plan.maxSteps && callsSoFar + calls.length <= plan.maxCalls;
}

/**
 * Runs one tool call of the model as the trusted operation it names, with the caller's credentials and through the
 * same operation rules; a call of an operation that is not in `graphTools`, unparsable arguments or arguments the
 * operation refuses become an error result the model reads (and the step's `errorCode`), never an upstream request.
 */
async function runGraphCall(
  ctx: GatewayContext,
  plan: GraphToolPlan,
  call: ChatToolCall,
  turn: number,
): Promise<{ step: ChatGraphStep; message: ChatMessageInput }> {
  const { schema, operations, execute } = plan.toolset;
  let result: { data?: unknown; errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> };
  const op = plan.names.has(call.name) ? operations.get(call.name) : undefined;
  const refuse = (error: GatewayError) => ({ errors: ctx.services.formatErrors([error]) });
  if (!op) {
    result = refuse(
      badInput(
        `${JSON.stringify(call.name)} is not one of this completion's graphTools (${[...plan.names].join(', ')}).`,
        'graphTools',
      ),
    );
  } else {
    let parsed: unknown;
    try {
      parsed = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch {
      parsed = undefined;
    }
    const variables =
      parsed === undefined
        ? badInput(`Arguments of ${op.name} are not JSON: ${JSON.stringify(call.arguments.slice(0, 100))}.`, op.name)
        : checkArguments(schema, op, parsed);
    result =
      variables instanceof GatewayError
        ? refuse(variables)
        : await execute(
            op,
            variables,
            // The completion's caller; it was admitted, so it is known, whether by key, token or an open /mcp.
            { ...ctx.caller, requestId: ctx.requestId, authenticated: true, transport: 'graph-tool', trace: undefined },
            ctx.signal,
          );
  }
  const text = JSON.stringify({ data: result.data ?? null, ...(result.errors ? { errors: result.errors } : {}) });
  const content =
    text.length > MAX_RESULT_CHARS
      ? `${text.slice(0, MAX_RESULT_CHARS)}… (cut at ${MAX_RESULT_CHARS} of ${text.length} characters)`
      : text;
  const code = result.errors?.[0]?.extensions?.code;
  return {
    step: {
      turn,
      toolCallId: call.id,
      operation: call.name,
      arguments: call.arguments,
      result: content.length > PREVIEW_CHARS ? `${content.slice(0, PREVIEW_CHARS)}…` : content,
      errorCode: typeof code === 'string' ? code : null,
    },
    message: { role: 'TOOL', toolCallId: call.id, content },
  };
}

/**
 * The assistant message that asked for tool calls, as the next turn's conversation carries it: with the reasoning it
 * came with (DeepSeek and Kimi refuse the next turn without it while reasoning; GLM asks for it to be kept), or an
 * empty one when the model reasoned without returning any.
 */
function assistantTurn(
  content: string | null,
  calls: readonly ChatToolCall[],
  reasoning: string | null,
  reasoned: boolean,
): ChatMessageInput {
  const turn: ChatMessageInput = {
    role: 'ASSISTANT',
    content,
    toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
  };
  if (reasoning || reasoned) turn.reasoningContent = reasoning ?? '';
  return turn;
}

/** Tool calls as a stream's fragments assemble them: `id` and `name` first, `arguments` in pieces per index. */
class StreamedToolCalls {
  private readonly byIndex = new Map<number, ChatToolCall>();

  add(chunk: ChatChunk): void {
    for (const d of chunk.delta.toolCalls ?? []) {
      let call = this.byIndex.get(d.index);
      if (!call) this.byIndex.set(d.index, (call = { id: '', name: '', arguments: '' }));
      if (d.id) call.id = d.id;
      if (d.name) call.name = d.name;
      if (d.arguments) call.arguments += d.arguments;
    }
  }

  list(): ChatToolCall[] {
    return [...this.byIndex.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  }
}

/** A streamed chunk that reports one graph step (no text of its own). */
function stepChunk(
  base: Pick<ChatCompletionChunk, 'id' | 'provider' | 'model'>,
  step: ChatGraphStep,
): ChatCompletionChunk {
  return {
    ...base,
    index: 0,
    delta: { role: null, content: null, reasoningContent: null, toolCalls: null },
    finishReason: null,
    usage: null,
    graphStep: step,
    reasoningUsed: null,
    json: null,
    jsonError: null,
  };
}

/** The streamed answer's JSON, checked as a whole answer's would be. */
function answerOf(
  format: Parameters<typeof checkAnswer>[0],
  text: string,
  finish: ChatCompletionChunk['finishReason'],
) {
  const checked = checkAnswer(format, text, finish ?? null);
  return { json: checked.json, jsonError: checked.error };
}

/** The completion of the last turn with the steps before it, the usage of all turns and the bound's finish. */
function finalCompletion(
  last: GraphCompletion,
  steps: ChatGraphStep[],
  usage: ChatUsage,
  stopped: boolean,
  reasoned: boolean,
): GraphCompletion {
  return {
    ...last,
    choices: stopped ? last.choices.map((c) => ({ ...c, finishReason: 'GRAPH_TOOL_LIMIT' })) : last.choices,
    usage: usageOf(usage),
    graphSteps: steps,
    reasoningUsed: reasoned,
  };
}

/**
 * A completion with graph tools: each turn is one completion with the operations offered as tools; the model's calls
 * are run as those operations and their results added to the conversation, until it answers or a bound stops it.
 */
export async function completeWithGraphTools(
  input: ChatCompletionInput,
  plan: GraphToolPlan,
  ctx: GatewayContext,
): Promise<GraphCompletion> {
  const messages: ChatMessageInput[] = [...input.messages];
  const steps: ChatGraphStep[] = [];
  const attempts: Attempt[] = [];
  let usage: ChatUsage | undefined;
  let reasoned = false;
  for (let turn = 1; ; turn++) {
    const targets = await targetsOf(turnInput(input, plan, messages), ctx);
    const {
      target,
      value,
      attempts: tried,
    } = await firstServing(ctx, targets, (t, retry) => t.client.complete(t.request, t.model, ctx, retry));
    attempts.push(...tried);
    await ctx.services.domains.chatUsage.record(target.client.spec.id, target.model.id, value.usage, ctx);
    usage = addUsage(usage, value.usage);
    const choice = value.choices[0];
    const calls = choice?.finishReason === 'TOOL_CALLS' ? (choice.message.toolCalls ?? []) : [];
    // The answer's JSON is checked on the last turn only: a turn that calls tools has no answer yet.
    const completion = completionOf(
      target.client.spec.id,
      target.model.id,
      value,
      attempts,
      calls.length ? { reasoningExpected: target.reasoningExpected } : target,
    );
    reasoned ||= completion.reasoningUsed;
    if (calls.length === 0) return finalCompletion(completion, steps, usage, false, reasoned);
    if (!withinBounds(plan, turn, steps.length, calls))
      return finalCompletion(completion, steps, usage, true, reasoned);
    messages.push(
      assistantTurn(choice.message.content, calls, choice.message.reasoningContent, completion.reasoningUsed),
    );
    for (const call of calls) {
      const { step, message } = await runGraphCall(ctx, plan, call, turn);
      steps.push(step);
      messages.push(message);
    }
  }
}

/**
 * The same loop streamed: the model's text as it comes, one chunk per operation called (the call, its arguments and
 * the start of its result), and a last chunk with the finish and the usage of all turns. The first turn opens before
 * the subscription yields, as a plain stream does; a failure after that ends the stream with the error.
 */
export async function streamWithGraphTools(
  input: ChatCompletionInput,
  plan: GraphToolPlan,
  ctx: GatewayContext,
  admitted?: AdmittedTargets,
) {
  const messages: ChatMessageInput[] = [...input.messages];
  // The first turn as admission checked it, on the connection it waited for (admission.ts).
  let opened = admitted
    ? await openStream(ctx, admitted.targets, admitted)
    : await openStream(ctx, await targetsOf(turnInput(input, plan, messages), ctx));
  // Its end stops the current turn's upstream read (`onEnd`: no abort signal per stream).
  return eventStream<StreamEvent>(
    (sink) =>
      (async () => {
        const steps: ChatGraphStep[] = [];
        let usage: ChatUsage | undefined;
        let reasoned = false;
        let turn = 1;
        let finish: ChatCompletionChunk['finishReason'] = null;
        try {
          for (; ; turn++) {
            const provider = opened.target.client.spec.id;
            const model = opened.target.model.id;
            const calls = new StreamedToolCalls();
            let id = '';
            let text = '';
            let reasoning = '';
            let count = 0;
            let turnUsage: ChatUsage | null = null;
            finish = null;
            const { chunks, first } = opened.value;
            for (let next = first; !next.done; next = await chunks.next()) {
              const c = next.value;
              count += 1;
              id = c.id;
              calls.add(c);
              finish = c.finishReason ?? finish;
              turnUsage = c.usage ?? turnUsage;
              if (!c.delta.content && !c.delta.reasoningContent) continue;
              text += c.delta.content ?? '';
              reasoning += c.delta.reasoningContent ?? '';
              await sink.push({
                chunk: chunkOf(provider, model, {
                  ...c,
                  delta: { ...c.delta, toolCalls: null },
                  finishReason: null,
                  usage: null,
                }),
              });
            }
            const used = turnUsage ?? { promptTokens: 0, completionTokens: count, totalTokens: count };
            await ctx.services.domains.chatUsage.record(provider, model, used, ctx);
            usage = addUsage(usage, used);
            const turnReasoned = opened.target.reasoningExpected || reasoning !== '' || !!used.reasoningTokens;
            reasoned ||= turnReasoned;
            const list = finish === 'TOOL_CALLS' ? calls.list() : [];
            if (list.length > 0 && !withinBounds(plan, turn, steps.length, list)) finish = 'GRAPH_TOOL_LIMIT';
            else if (list.length > 0) {
              messages.push(assistantTurn(text || null, list, reasoning || null, turnReasoned));
              for (const call of list) {
                const { step, message } = await runGraphCall(ctx, plan, call, turn);
                steps.push(step);
                messages.push(message);
                await sink.push({ chunk: stepChunk({ id, provider, model }, step) });
              }
              opened = await openStream(ctx, await targetsOf(turnInput(input, plan, messages), ctx));
              continue;
            }
            const empty = { role: null, content: null, reasoningContent: null, toolCalls: null };
            const last: ChatCompletionChunk = {
              id,
              provider,
              model,
              index: 0,
              delta: empty,
              finishReason: finish,
              usage: usageOf(usage),
              graphStep: null,
              reasoningUsed: reasoned,
              json: null,
              jsonError: null,
            };
            if (opened.target.answerFormat) Object.assign(last, answerOf(opened.target.answerFormat, text, finish));
            await sink.push({ chunk: last });
            break;
          }
        } catch (error) {
          // Not awaited: the last value, kept past the high-water mark; end() keeps it for the consumer, and push never
          // rejects.
          void sink.push({ error });
        }
        sink.end();
        ctx.log.info(
          {
            graphTools: [...plan.names],
            turns: turn,
            graphSteps: steps.length,
            finishReason: finish,
            usage: usage ?? null,
          },
          'chat stream with graph tools',
        );
      })(),
    ctx.signal,
    () => opened.value.stream.cancel(),
  );
}
