import { badInput } from '../../errors/codes.js';
import type { ChatCompletionInput } from '../../generated/types.js';
import type { ChatModelSpec, ChatProviderSpec } from '../../upstreams/chat/provider.js';
import type { ChatMessage, ChatReasoning, ChatToolChoice } from '../../upstreams/chat/types.js';

/** A completion's reasoning as it will be sent, and whether the model will reason. */
export interface ReasoningPlan {
  /** What goes on the wire; a field left out leaves the provider's default. */
  wire: ChatReasoning | undefined;
  /** Whether the model reasons for this call, as far as the gateway can tell before the answer. */
  expected: boolean;
}

const forced = (choice: ChatToolChoice | undefined) => choice === 'required' || typeof choice === 'object';

/**
 * The caller's `reasoning` against what the model and provider take (models/, provider.ts), checked before any
 * request: a switch the model cannot honour, an effort it does not take, or a forced tool choice the provider refuses
 * while reasoning is BAD_USER_INPUT saying what to change. With reasoning left at the model's default, a forced tool
 * choice on DeepSeek or Kimi turns reasoning off for that call instead (the answer's `reasoningUsed` says so), but
 * only on a model known to allow it. A model whose reasoning the gateway does not know gets the caller's reasoning as
 * asked and nothing of the gateway's own: the provider's answer decides.
 */
export function planReasoning(
  input: ChatCompletionInput,
  spec: ChatProviderSpec,
  model: ChatModelSpec,
  toolChoice: ChatToolChoice | undefined,
): ReasoningPlan {
  const enabled = input.reasoning?.enabled ?? undefined;
  const effort = input.reasoning?.effort ?? undefined;
  const at = 'input.reasoning';
  const name = `${spec.id} model ${model.id}`;
  if (effort && enabled === false)
    throw badInput(
      `reasoning.effort ${effort} with reasoning.enabled false: leave effort out, or enable reasoning.`,
      `${at}.effort`,
    );
  if ((enabled !== undefined || effort) && !spec.reasoning)
    throw badInput(
      `${spec.id} has no reasoning switch the gateway knows; leave reasoning out (the model's default applies).`,
      at,
    );
  if (effort) {
    const efforts = spec.reasoning?.efforts;
    if (!efforts || model.effort === false)
      throw badInput(
        `${name} takes no reasoning effort; leave effort out (models that take one show reasoningEffort: true).`,
        `${at}.effort`,
      );
    if (!efforts[effort])
      throw badInput(
        `${spec.id} takes reasoning.effort ${Object.keys(efforts).join(', ')}, not ${effort}; pick one of those.`,
        `${at}.effort`,
      );
  }
  const support = model.reasoning;
  if (support === undefined) {
    return {
      wire: enabled !== undefined || effort ? { enabled, effort } : undefined,
      expected: enabled === true || !!effort,
    };
  }
  if (support === 'none' && (enabled || effort)) {
    throw badInput(
      `${name} does not reason; leave reasoning out, or pick a model whose reasoning is not NONE (chatProviders { modelDetails { id reasoning } }).`,
      at,
    );
  }
  if (support === 'always' && enabled === false)
    throw badInput(
      `${name} always reasons; leave reasoning.enabled out, or pick a model that can answer without (reasoning OPTIONAL_ON or OPTIONAL_OFF).`,
      `${at}.enabled`,
    );

  const byDefault = support === 'optional-on' || support === 'always';
  // A model that always reasons has no switch to send (Kimi refuses `thinking` beside `reasoning_effort` [third party]).
  const switched = support === 'always' ? undefined : (enabled ?? (effort && !byDefault ? true : undefined));
  let wire: ChatReasoning | undefined = switched !== undefined || effort ? { enabled: switched, effort } : undefined;
  let expected = enabled ?? (effort ? true : byDefault);
  if (expected && forced(toolChoice) && spec.refusesForcedToolChoiceWhileReasoning) {
    const what = toolChoice === 'required' ? 'toolChoice REQUIRED' : 'a toolChoice naming a tool';
    if (support === 'always')
      throw badInput(
        `${spec.id} refuses ${what} while reasoning, and ${model.id} always reasons; use toolChoice AUTO, or a model that can answer without reasoning.`,
        'input.toolChoice',
      );
    if (enabled === true || effort)
      throw badInput(
        `${spec.id} refuses ${what} while reasoning; set reasoning.enabled false (or leave reasoning out: the gateway then turns it off for this call), or use toolChoice AUTO.`,
        'input.toolChoice',
      );
    wire = { enabled: false, gatewayAdded: true };
    expected = false;
  }
  return { wire, expected };
}

/**
 * DeepSeek and Kimi refuse a conversation in which an assistant turn with tool calls comes without the reasoning it
 * was made with, while reasoning is on: named here, with the fix, rather than by the provider's 400.
 */
export function checkReasoningTurns(
  messages: readonly ChatMessage[],
  spec: ChatProviderSpec,
  plan: ReasoningPlan,
): void {
  if (!plan.expected || !spec.needsReasoningWithToolCalls) return;
  const i = messages.findIndex(
    (m) => m.role === 'assistant' && m.toolCalls?.length && m.reasoningContent === undefined,
  );
  if (i === -1) return;
  throw badInput(
    `input.messages[${i}] is an ASSISTANT turn with toolCalls but no reasoningContent; ${spec.id} needs each such turn sent back with the reasoningContent it came with while reasoning. Add it (ChatMessage.reasoningContent of that answer), or set reasoning.enabled false.`,
    `input.messages[${i}].reasoningContent`,
  );
}
