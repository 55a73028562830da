import { useApolloClient, useQuery } from '@apollo/client/react';
import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import {
  ChatProvidersQuery,
  ChatStreamSubscription,
  DeleteChatDocumentMutation,
  graphToolNames,
  UploadChatDocumentMutation,
  type ChatDocument,
  type ChatInput,
  type ChatUsage,
} from './operations.js';

interface Turn {
  role: 'USER' | 'ASSISTANT';
  content: string;
}

type StreamState = 'idle' | 'streaming' | 'finished' | 'stopped' | 'failed';

/**
 * A chat that streams the answer token by token over `chatCompletionStream`. Stop unsubscribes, which completes the
 * subscription on the gateway, and the gateway aborts the provider's request. A document attached is uploaded once
 * (`uploadChatDocument`, to Kimi's files API when the model is Kimi's, else read by the gateway) and named in every
 * turn's `documents`.
 */
export function ChatWindow() {
  const client = useApolloClient();
  const providers = useQuery(ChatProvidersQuery);
  const [target, setTarget] = useState('');
  const [consultGraph, setConsultGraph] = useState(false);
  const [prompt, setPrompt] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [answer, setAnswer] = useState('');
  const [usage, setUsage] = useState<ChatUsage | null>(null);
  const [state, setState] = useState<StreamState>('idle');
  const [problem, setProblem] = useState('');
  const [steps, setSteps] = useState<string[]>([]);
  const stream = useRef<{ unsubscribe(): void } | null>(null);
  const [document, setDocument] = useState<ChatDocument | null>(null);
  const [attaching, setAttaching] = useState(false);

  const models = (providers.data?.chatProviders ?? []).flatMap((p) => p.models.map((model) => `${p.id}/${model}`));
  // The first model until the user picks one.
  const chosen = target || models[0] || '';
  useEffect(() => () => stream.current?.unsubscribe(), []);

  const send = (event: FormEvent) => {
    event.preventDefault();
    const text = prompt.trim();
    if (!text || !chosen || state === 'streaming') return;
    const [provider, ...model] = chosen.split('/');
    const history: Turn[] = [
      ...turns,
      ...(answer ? [{ role: 'ASSISTANT' as const, content: answer }] : []),
      { role: 'USER', content: text },
    ];
    const input: ChatInput = { provider, model: model.join('/'), messages: history };
    if (consultGraph) input.graphTools = graphToolNames;
    if (document) input.documents = [document.id];
    clearAnswer();
    setTurns(history);
    setPrompt('');
    setState('streaming');
    let received = '';
    stream.current = client.subscribe({ query: ChatStreamSubscription, variables: { input } }).subscribe({
      next: ({ data, error }) => {
        if (error) {
          setProblem(error.message);
          return;
        }
        const chunk = data?.chatCompletionStream;
        if (!chunk) return;
        if (chunk.delta.content) {
          received += chunk.delta.content;
          setAnswer(received);
        }
        const step = chunk.graphStep;
        if (step)
          setSteps((previous) => [
            ...previous,
            step.errorCode ? `${step.operation} (${step.errorCode})` : step.operation,
          ]);
        if (chunk.usage) setUsage(chunk.usage);
      },
      error: (error: Error) => {
        setProblem(error.message);
        setState('failed');
      },
      complete: () => setState((current) => (current === 'streaming' ? 'finished' : current)),
    });
  };

  const attach = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setAttaching(true);
    setProblem('');
    try {
      // Kimi keeps the file and extracts its text itself; for the other providers the gateway reads it.
      const provider = chosen.startsWith('moonshot/') ? 'moonshot' : null;
      const { data, error } = await client.mutate({
        mutation: UploadChatDocumentMutation,
        variables: { file, provider },
      });
      if (error) setProblem(error.message);
      else if (data?.uploadChatDocument) setDocument(data.uploadChatDocument);
    } catch (error) {
      // An event handler's promise goes nowhere: a failed upload (network down) shows here, not as an unhandled rejection.
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setAttaching(false);
    }
  };

  const detach = async () => {
    if (!document) return;
    setDocument(null);
    try {
      await client.mutate({ mutation: DeleteChatDocumentMutation, variables: { id: document.id } });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  function clearAnswer() {
    setAnswer('');
    setUsage(null);
    setSteps([]);
    setProblem('');
  }

  const restart = () => {
    clearAnswer();
    setTurns([]);
    setState('idle');
  };

  const stop = () => {
    stream.current?.unsubscribe();
    stream.current = null;
    setState('stopped');
  };

  return (
    <section className="panel chat" aria-labelledby="chat-heading">
      <h2 id="chat-heading">Chat</h2>
      <div className="row">
        <select aria-label="Model" value={chosen} onChange={(event) => setTarget(event.target.value)}>
          {(providers.data?.chatProviders ?? []).map((p) => (
            <optgroup key={p.id} label={`${p.id}${p.live ? '' : ' (sandbox)'}`}>
              {p.models.map((model) => (
                <option key={model} value={`${p.id}/${model}`}>{`${p.id} / ${model}`}</option>
              ))}
            </optgroup>
          ))}
        </select>
        <label className="toggle">
          <input type="checkbox" checked={consultGraph} onChange={(event) => setConsultGraph(event.target.checked)} />{' '}
          consult the graph
        </label>
      </div>
      <div className="row">
        {document ? (
          <p className="muted" data-testid="document">
            📄 {document.fileName}: {document.tokens} tokens{document.provider ? `, kept by ${document.provider}` : ''}{' '}
            <button type="button" className="secondary" onClick={() => void detach()}>
              Remove
            </button>
          </p>
        ) : (
          <label className="toggle">
            {attaching ? 'Uploading…' : 'Attach a document (PDF, text, Markdown)'}
            <input
              type="file"
              aria-label="Attach a document"
              accept=".pdf,.txt,.md,.markdown,.csv,.json"
              disabled={attaching}
              onChange={(event) => void attach(event)}
            />
          </label>
        )}
      </div>
      {providers.error && (
        <p className="error" role="alert">
          {providers.error.message}
        </p>
      )}
      <div className="transcript" data-testid="transcript">
        {turns.map((turn, index) => (
          <p key={index} className={turn.role.toLowerCase()}>
            {turn.content}
          </p>
        ))}
        {(answer || state === 'streaming') && (
          <p className="assistant" data-testid="answer">
            {answer}
            {state === 'streaming' && <span className="cursor">▍</span>}
          </p>
        )}
      </div>
      {steps.length > 0 && (
        <p className="muted" data-testid="graph-steps">
          Consulted: {steps.join(', ')}
        </p>
      )}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      <p className="muted" data-testid="chat-state">
        {state === 'streaming' && 'Streaming…'}
        {state === 'stopped' && 'Stopped.'}
        {state === 'finished' &&
          usage &&
          `${usage.promptTokens} prompt + ${usage.completionTokens} completion = ${usage.totalTokens} tokens`}
        {state === 'failed' && 'Failed.'}
      </p>
      <form onSubmit={send} className="row">
        <textarea
          aria-label="Message"
          rows={2}
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
          placeholder="Ask something…"
        />
        {state === 'streaming' ? (
          <button type="button" onClick={stop} className="stop">
            Stop
          </button>
        ) : (
          <>
            <button type="submit" disabled={!chosen}>
              Send
            </button>
            {turns.length > 0 && (
              <button type="button" className="secondary" onClick={restart}>
                New chat
              </button>
            )}
          </>
        )}
      </form>
    </section>
  );
}
