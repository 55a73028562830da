import type { Fetcher } from '@graphiql/toolkit';
import type { GraphiQLProps } from 'graphiql';
import { useSyncExternalStore } from 'react';

/**
 * GraphiQL shows each payload of a subscription in its result pane, one at a time: a chat stream's deltas ("A",
 * " careful", …) then never read as one answer. This plugin, "Stream", shows the answer whole as it grows: the
 * fetcher below watches every `chatCompletionStream` payload and adds its deltas, reasoning apart from the content.
 */
export interface StreamText {
  /** No stream seen yet, one running, or one that ended (its finish reason, or the error that ended it). */
  state: 'idle' | 'streaming' | 'done';
  provider?: string;
  model?: string;
  reasoning: string;
  content: string;
  finishReason?: string;
  totalTokens?: number;
  error?: string;
}

const idle: StreamText = { state: 'idle', reasoning: '', content: '' };
let current = idle;
const listeners = new Set<() => void>();

function update(next: StreamText): void {
  current = next;
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** The current stream's text, re-rendering a component as it grows. */
export function useStreamText(): StreamText {
  return useSyncExternalStore(subscribe, () => current);
}

/** Calls `onStart` when a chat stream starts (to show the plugin), the fetcher wrapper's one side effect beyond the store. */
export function onStreamStart(listener: () => void): void {
  startListeners.add(listener);
}
const startListeners = new Set<() => void>();

interface ChunkPayload {
  data?: {
    chatCompletionStream?: {
      provider?: string;
      model?: string;
      delta?: { content?: string | null; reasoningContent?: string | null };
      finishReason?: string | null;
      usage?: { totalTokens?: number } | null;
    };
  };
  errors?: Array<{ message: string }>;
}

/** `fetcher` with every chat stream's payloads added up in the store; the payloads reach GraphiQL unchanged. */
export function watchingChatStreams(fetcher: Fetcher): Fetcher {
  return (params, options) => {
    const result = fetcher(params, options);
    if (!/\bchatCompletionStream\b/.test(params.query ?? '')) return result;
    return Promise.resolve(result).then((value) =>
      isAsyncIterable(value) ? watched(value as AsyncIterable<ChunkPayload>) : value,
    ) as ReturnType<Fetcher>;
  };
}

/**
 * The payloads of `source` as they are, each added to the store first. A plain iterator rather than a generator, so
 * GraphiQL's Stop (`return()`) reaches the source at once, not after the next token.
 */
function watched(source: AsyncIterable<ChunkPayload>): AsyncIterableIterator<ChunkPayload> {
  const iterator = source[Symbol.asyncIterator]();
  update({ state: 'streaming', reasoning: '', content: '' });
  for (const listener of startListeners) listener();
  const end = () => current.state === 'streaming' && update({ ...current, state: 'done' });
  const watching: AsyncIterableIterator<ChunkPayload> = {
    async next() {
      let result: IteratorResult<ChunkPayload>;
      try {
        result = await iterator.next();
      } catch (error) {
        update({ ...current, error: (error as Error)?.message ?? String(error) });
        end();
        throw error;
      }
      if (result.done) end();
      else observe(result.value);
      return result;
    },
    async return(value?: unknown) {
      end();
      return iterator.return ? iterator.return(value) : { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      end();
      if (iterator.throw) return iterator.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]: () => watching,
  };
  return watching;
}

function observe(payload: ChunkPayload): void {
  const chunk = payload.data?.chatCompletionStream;
  if (chunk) {
    update({
      ...current,
      provider: chunk.provider ?? current.provider,
      model: chunk.model ?? current.model,
      reasoning: current.reasoning + (chunk.delta?.reasoningContent ?? ''),
      content: current.content + (chunk.delta?.content ?? ''),
      finishReason: chunk.finishReason ?? current.finishReason,
      totalTokens: chunk.usage?.totalTokens ?? current.totalTokens,
    });
  }
  if (payload.errors?.length) update({ ...current, error: payload.errors.map((e) => e.message).join('\n') });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function StreamPanel() {
  const text = useStreamText();
  if (text.state === 'idle') {
    return (
      <div className="stream-text">
        <div className="graphiql-doc-explorer-title">Stream</div>
        <p>
          Run a <code>chatCompletionStream</code> subscription (the Stream tab): its answer appears here whole, token by
          token, as it arrives.
        </p>
      </div>
    );
  }
  const status =
    text.state === 'streaming'
      ? 'streaming…'
      : text.error
        ? 'ended with an error'
        : `finished: ${text.finishReason ?? 'no finish reason'}`;
  return (
    <div className="stream-text" data-state={text.state}>
      <div className="graphiql-doc-explorer-title">Stream</div>
      <p className="stream-text-meta">
        {text.provider ?? '…'} / {text.model ?? '…'}: {status}
        {text.totalTokens !== undefined ? `, ${text.totalTokens} tokens` : ''}
      </p>
      {text.reasoning ? <pre className="stream-text-reasoning">{text.reasoning}</pre> : null}
      <pre className="stream-text-content">{text.content}</pre>
      {text.error ? <pre className="stream-text-error">{text.error}</pre> : null}
    </div>
  );
}

function StreamIcon() {
  return (
    <svg
      viewBox="0 0 24 24"
      width="1em"
      height="1em"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
    >
      <path d="M4 6h16M4 10h12M4 14h16M4 18h9" />
    </svg>
  );
}

type GraphiQLPlugin = NonNullable<GraphiQLProps['plugins']>[number];

/** The "Stream" plugin: the running (or last) chat stream's text, whole. */
export const streamTextPlugin: GraphiQLPlugin = { title: 'Stream', icon: StreamIcon, content: StreamPanel };
