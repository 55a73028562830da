import type { Client, FormattedExecutionResult } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphiqlExamples } from '../../src/domains/index.js';
import { upload } from '../support/documents.js';
import { exampleOperation, exampleOperations, type ExampleOperation } from '../support/examples.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { collect, wsClient } from '../support/ws.js';

// The tabs GraphiQL opens with are a newcomer's first hour (issue 38): each operation of each tab answers with data
// on the sandbox, and what it lists is not empty.
let t: TestGateway;
let client: Client;
beforeAll(async () => {
  t = await startTestGateway({ GRAPH_POLL_INTERVAL_MS: '100' });
  client = wsClient(t.gateway.wsUrl);
});
afterAll(async () => {
  await client?.dispose();
  await t?.close();
});

/** The first list of an answer, in selection order: what the operation lists (nested lists may be empty). */
function firstList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) {
      const list = firstList(v);
      if (list) return list;
    }
  }
  return undefined;
}

/** The first `count` results of a subscription, then it is stopped. */
function firstResults(
  op: ExampleOperation,
  count: number,
): Promise<FormattedExecutionResult<Record<string, unknown>, unknown>[]> {
  return new Promise((resolve, reject) => {
    const results: FormattedExecutionResult<Record<string, unknown>, unknown>[] = [];
    const timer = setTimeout(
      () => reject(new Error(`${op.name}: ${results.length} of ${count} results within 20 s`)),
      20_000,
    );
    const stop = client.subscribe(
      { query: op.query, variables: op.variables },
      {
        next: (r) => {
          results.push(r);
          if (results.length === count) {
            clearTimeout(timer);
            stop();
            resolve(results);
          }
        },
        error: reject,
        complete: () => resolve(results),
      },
    );
  });
}

describe('the GraphiQL tabs', () => {
  it('are seven topics, each titled by a short first operation, each operation named once', () => {
    const operations = exampleOperations();
    expect(graphiqlExamples.map((tab) => operations.find((op) => op.tab === tab)!.name)).toEqual([
      'Upstreams',
      'Health',
      'LiveHealth',
      'Movie',
      'Chat',
      'Stream',
      'Embed',
    ]);
    expect(new Set(operations.map((op) => op.name)).size).toBe(operations.length);
    for (const op of operations) expect(op.name.length, op.name).toBeLessThanOrEqual(12);
  });

  it("keep each comment line within the operation editor's width beside the result pane (56 characters)", () => {
    for (const tab of graphiqlExamples) {
      const long = tab.query.split('\n').filter((line) => line.trimStart().startsWith('#') && line.length > 56);
      expect(long, tab.title).toEqual([]);
    }
  });

  it('give every operation its own variable names, all in the one variables JSON of its tab', () => {
    for (const tab of graphiqlExamples) {
      const ops = exampleOperations([tab]);
      const declared = ops.flatMap((op) => Object.keys(op.variables ?? {}));
      expect(new Set(declared).size, tab.title).toBe(declared.length);
      expect(Object.keys(tab.variables ? JSON.parse(tab.variables) : {}).sort(), tab.title).toEqual(
        [...declared].sort(),
      );
    }
  });

  it.each(
    exampleOperations()
      .filter((op) => op.type !== 'subscription')
      .map((op) => [op.name, op] as const),
  )('%s answers with data on the sandbox', async (_name, op) => {
    // A caller's documents are the ones it uploaded: upload one first, as the tab's comment says to.
    if (op.name === 'Documents')
      expect(
        (
          await upload(t.gateway.url, {
            name: 'notes.md',
            data: '# Notes\n\nExchange is healthy.',
            type: 'text/markdown',
          })
        ).body.errors,
      ).toBeUndefined();
    const { body } = await t.query(op.query, op.variables);
    expect(body.errors).toBeUndefined();
    expect(Object.values(body.data!).every((v) => v !== null)).toBe(true);
    const list = firstList(body.data);
    if (list) expect(list.length).toBeGreaterThan(0);
  });

  it('Clock ticks over the WebSocket', async () => {
    const results = await firstResults(exampleOperation('Clock'), 2);
    expect(results.map((r) => typeof (r.data as { serverTime: unknown }).serverTime)).toEqual(['string', 'string']);
  });

  it("LiveHealth shows Degrade's change, and Restore puts it back", async () => {
    const change = firstResults(exampleOperation('LiveHealth'), 1);
    // Only changes after subscribing are sent: let the poller take its first look before the write.
    const polls = t.upstreamRequests('graph').length;
    await expect.poll(() => t.upstreamRequests('graph').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(polls + 2);
    expect((await t.query(exampleOperation('Degrade').query)).body.errors).toBeUndefined();
    const [event] = await change;
    expect(event.data).toMatchObject({
      serviceHealthChanged: {
        kind: 'STATUS_CHANGED',
        serviceHealth: { id: 'Exchange', status: 'SERVICE_DEGRADATION' },
      },
    });
    expect((await t.query(exampleOperation('Restore').query)).body.data).toEqual({
      updateServiceHealth: { id: 'Exchange', service: 'Exchange Online', status: 'SERVICE_OPERATIONAL' },
    });
  });

  it.each(['Stream', 'Grounded'])('%s streams an answer that names its subject, to the end', async (name) => {
    const op = exampleOperation(name);
    const { results, error } = await collect<{
      chatCompletionStream: {
        provider: string;
        model: string;
        delta: { content: string | null; reasoningContent: string | null } | null;
        finishReason: string | null;
      };
    }>(client, op.query, op.variables);
    expect(error).toBeUndefined();
    expect(results.every((r) => !r.errors)).toBe(true);
    const chunks = results.map((r) => r.data!.chatCompletionStream);
    expect(chunks.every((c) => c.provider && c.model)).toBe(true);
    expect(chunks.some((c) => c.delta?.reasoningContent)).toBe(true);
    expect(chunks.map((c) => c.delta?.content ?? '').join('')).toContain(
      name === 'Stream' ? 'a GraphQL gateway' : 'Exchange Online (Exchange) has status',
    );
    expect(chunks.at(-1)!.finishReason).toBe('STOP');
  });
});
