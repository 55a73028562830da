/**
 * A chat stream admitted in line, arguments first: everything that can refuse `chatCompletionStream` without its
 * provider (the input, the model, routes and fallbacks, graph tools, documents, the context window, a spent daily
 * budget, a rejected key) is decided at admission, with the pipeline's own caps and budgets; only then does the
 * stream wait for its provider's connection, in that provider's fair line per client (`FairQueue`), as the pipeline's
 * last admission stage (`waitTurn`). A stream with a bad argument is refused at once, however full the pool is, and a
 * waiting stream holds only its admitted request: no execution has started, no upstream request body, parser or
 * buffer exists until its turn comes. The resolver then opens the stream on the connection it waited for.
 */
import {
  getArgumentValues,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { OperationKey, operationValue, setOperationValue, type GatewayContext } from '../../context/request.js';
import { GatewayError } from '../../errors/codes.js';
import type { ChatCompletionInput } from '../../generated/types.js';
import type { DomainRule } from '../rule.js';
import { targetsWithDocuments } from './documents/attach.js';
import { firstCallable, type AdmittedTargets } from './fallbacks.js';
import { firstTurnInput, graphToolPlan, type GraphToolPlan } from './graphTools.js';

/** What admission decided for a chat stream, for its resolver. */
export interface AdmittedStream extends AdmittedTargets {
  /** Its graph tools, checked; undefined when it names none. */
  readonly plan: GraphToolPlan | undefined;
}

const ADMITTED = new OperationKey<Admission>('the chat stream admitted, and its place in its provider’s line');

class Admission implements AdmittedStream {
  /** The connection once its turn came, until the stream takes it (the rule's `finish` gives back one never taken). */
  connection: (() => void) | undefined = undefined;

  constructor(
    readonly plan: GraphToolPlan | undefined,
    readonly targets: AdmittedStream['targets'],
    readonly from: number,
    readonly attempts: AdmittedStream['attempts'],
  ) {}

  takeConnection(): (() => void) | undefined {
    const release = this.connection;
    this.connection = undefined;
    return release;
  }
}

/** What admission decided for the operation's chat stream, if it did (the resolver's). */
export const takeAdmitted = (ctx: GatewayContext): AdmittedStream | undefined => operationValue(ctx, ADMITTED);

/**
 * The chat domain's rule: a `chatCompletionStream` subscription's checks at admission, then its wait for its first
 * target's connection once every other rule (fair share's CLIENT_MAX_CHAT_STREAMS, demand control) admitted it.
 */
export function useChatStreamAdmission(options: { schema: GraphQLSchema }): DomainRule {
  const field = options.schema.getSubscriptionType()?.getFields().chatCompletionStream;
  return {
    name: 'chatStreamAdmission',
    admit(op) {
      if (op.type !== 'subscription' || !field) return undefined;
      const node = rootField(op.document, op.operation.selectionSet);
      // Another subscription, or a root field under @skip/@include: execution decides (and the resolver checks).
      if (node?.name.value !== field.name || node.directives?.length) return undefined;
      let input: ChatCompletionInput;
      const given = node.arguments?.[0];
      try {
        // `input: $x`, as clients send it: the variable as operationInputs coerced it, not a second coercion.
        input =
          node.arguments?.length === 1 && given?.name.value === 'input' && given.value.kind === Kind.VARIABLE
            ? (op.variables?.[given.value.name.value] as ChatCompletionInput)
            : (
                getArgumentValues(field as GraphQLField<unknown, unknown>, node, op.variables) as {
                  input: ChatCompletionInput;
                }
              ).input;
      } catch {
        return undefined;
      }
      if (input == null) return undefined;
      return admit(op.context, input);
    },
    waitTurn(op) {
      const admitted = operationValue(op.context, ADMITTED);
      if (!admitted) return undefined;
      const { connections } = admitted.targets[admitted.from].client;
      // Most streams find a free connection: no promise, no wait.
      admitted.connection = connections.tryAcquire(op.context.client);
      if (admitted.connection) return undefined;
      // The operation's own cancellation, followed as it is: waiting makes no AbortSignal (fairQueue.ts).
      return connections.acquire(op.context.client, op.context.aborts).then(
        (release) => {
          admitted.connection = release;
          return undefined;
        },
        (error: unknown) => refusal(error),
      );
    },
    finish(op) {
      // Ended before its stream took the connection (the client left, a later stage failed): the next in line gets it.
      operationValue(op.context, ADMITTED)?.takeConnection()?.();
    },
  };
}

async function admit(ctx: GatewayContext, input: ChatCompletionInput) {
  try {
    const plan = graphToolPlan(input, ctx);
    const targets = await targetsWithDocuments(plan ? firstTurnInput(input, plan) : input, ctx);
    const { from, attempts } = await firstCallable(ctx, targets);
    setOperationValue(ctx, ADMITTED, new Admission(plan, targets, from, attempts));
    return undefined;
  } catch (error) {
    return refusal(error);
  }
}

/** A contract error refuses the stream as it is; anything else is a fault the pipeline reports as one. */
function refusal(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  throw error;
}

/**
 * The subscription's one root field, through inline fragments and fragment spreads; undefined when a fragment on the
 * way has a directive (execution decides whether it runs).
 */
function rootField(document: DocumentNode, selectionSet: SelectionSetNode, depth = 0): FieldNode | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) return selection;
    if (selection.directives?.length || depth > 8) return undefined;
    const set =
      selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : fragment(document, selection.name.value);
    const found = set && rootField(document, set, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function fragment(document: DocumentNode, name: string): SelectionSetNode | undefined {
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === name) return d.selectionSet;
  return undefined;
}
