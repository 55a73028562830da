import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../../../src/app/gateway.js';
import { loadConfig } from '../../../../src/config/env.js';
import { startSandbox, type Sandbox } from '../../../../src/sandbox/server.js';
import { LogCapture } from '../../../support/gateway.js';
import { ownSpool, upload } from '../../../support/documents.js';
import { startRedis, type TestRedis } from '../../../support/redis.js';

// Chat documents and a Redis that fails (issue 43), on two gateways (replicas a and b) sharing a real redis-server
// and one sandbox: an upload either succeeds with its document stored or fails with nothing left (store, Kimi,
// spool); a deleted document is never served by a replica that cannot ask Redis; a Redis restarted empty leaves no
// file at Kimi for long.

const spooled = ownSpool();

let redis: TestRedis;
let sandbox: Sandbox;
let a: Gateway;
let b: Gateway;
let control: Redis;
const logs = new LogCapture();

beforeAll(async () => {
  redis = await startRedis();
  sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `documents-${randomUUID()}:`,
    GATEWAY_REPLICAS: '2',
    CHAT_DOCUMENT_TTL_S: '20',
    CHAT_DOCUMENT_STORE_MAX_BYTES: '4000',
    CHAT_DOCUMENT_CLIENT_MAX_BYTES: '1000',
  };
  [a, b] = await Promise.all(
    [0, 1].map(() => startGateway({ config: loadConfig(env), sandbox, logDestination: logs })),
  );
  control = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  control.on('error', () => undefined);
}, 60_000);
afterAll(async () => {
  redis?.resume();
  control?.disconnect();
  await Promise.all([a?.close(), b?.close()]);
  await sandbox?.close();
  await redis?.close();
});
beforeEach(async () => {
  // Each test starts with both replicas on Redis again (a test before may have stopped or paused it).
  await until(() => [a, b].every((g) => g.services.state.status().status === 'ready'), 'both replicas to reach Redis');
  sandbox.faults.clear();
  await fetch(`${sandbox.origin}/_sandbox/reset`, { method: 'POST' });
  sandbox.record.clear();
});

const query = async (g: Gateway, text: string, variables?: Record<string, unknown>) => {
  const res = await fetch(g.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: text, variables }),
  });
  return (await res.json()) as { data?: any; errors?: Array<{ message: string; extensions: Record<string, any> }> };
};
const LIST = '{ chatDocuments { id fileName } }';
const listed = async (g: Gateway) =>
  ((await query(g, LIST)).data?.chatDocuments ?? []) as Array<{ id: string; fileName: string }>;
const complete = (g: Gateway, documents: string[]) =>
  query(g, 'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }', {
    input: {
      provider: 'deepseek',
      model: 'deepseek-flash',
      messages: [{ role: 'USER', content: 'What grew?' }],
      documents,
      reasoning: { enabled: false },
    },
  });
const kimiFiles = async () =>
  (
    (await (
      await fetch(`${sandbox.baseUrls.moonshot}/files`, { headers: { authorization: 'Bearer sandbox' } })
    ).json()) as { data: Array<{ id: string; filename: string }> }
  ).data;
const sent = (upstream: string) =>
  sandbox.record.list().filter((r) => r.upstream === upstream && !(r.method === 'GET' && r.url.endsWith('/files')));
/** What is left: documents in the store (listed), files at Kimi, spooled temporary files. */
const leftBehind = async () => {
  // graphql-upload removes a request's spooled file once the response has closed, a moment after the client read it.
  for (let i = 0; i < 100 && spooled().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return { documents: (await listed(a)).length, kimi: (await kimiFiles()).length, spooled: spooled().length };
};

/** Waits (at most 20 s) until `done()`. */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Pauses Redis's writes (CLIENT PAUSE … WRITE: reads answer, scripts wait) once Kimi is counting the upload's tokens: the next write is the document's. */
async function uploadWhileWritesPause(pauseMs: number) {
  sandbox.faults.push({ upstream: 'moonshot', times: 1, delayMs: 400, match: '/tokenizers' });
  const answer = upload(a.url, { name: 'report.txt', data: 'Region 3 grew by 12 percent.' }, { provider: 'moonshot' });
  await until(
    () => sandbox.record.list().some((r) => r.url.endsWith('/tokenizers/estimate-token-count')),
    'the token count',
  );
  if (control.status !== 'ready') await control.connect();
  await control.call('CLIENT', 'PAUSE', String(pauseMs), 'WRITE');
  return (await answer).body;
}

describe('an upload whose store write gets no answer in time (Redis writes paused past REDIS_COMMAND_TIMEOUT_MS)', () => {
  it('answers success when the write is found stored once Redis answers: the document is listed, usable, its file at Kimi', async () => {
    const body = await uploadWhileWritesPause(1_500);
    expect(body.errors).toBeUndefined();
    const doc = body.data.uploadChatDocument;
    expect(await listed(b)).toEqual([{ id: doc.id, fileName: 'report.txt' }]);
    expect(await kimiFiles()).toHaveLength(1);
    expect((await complete(b, [doc.id])).errors).toBeUndefined();
    expect(
      logs
        .json()
        .some(
          (l) =>
            l.msg === 'the store write of a document got no answer; settled' &&
            l.document === doc.id &&
            l.settled === 'stored',
        ),
    ).toBe(true);
    await query(a, 'mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: doc.id });
    expect(await leftBehind()).toEqual({ documents: 0, kimi: 0, spooled: 0 });
  });

  it('answers a retryable error when Redis stays silent past the settling, and then leaves nothing: no document, no file at Kimi, no spool', async () => {
    const body = await uploadWhileWritesPause(9_000);
    expect(body.data?.uploadChatDocument ?? null).toBeNull();
    expect(body.errors![0]).toMatchObject({
      message:
        "The gateway's document store does not answer right now, so the upload of report.txt failed: what the store holds of it is removed once Redis answers; retry in a moment.",
      extensions: { code: 'INTERNAL_SERVER_ERROR', reason: 'DOCUMENT_STORE_UNAVAILABLE' },
    });
    // At the answer the write waits in Redis (reads still answer): Kimi's file is kept, since the write may land.
    expect(await leftBehind()).toEqual({ documents: 0, kimi: 1, spooled: 0 });
    // Redis runs the paused write when the pause ends; the upkeep (a tick each 2 s) then removes it and Kimi's file.
    await until(
      async () => (await kimiFiles()).length === 0 && (await listed(a)).length === 0,
      'the upload to be settled',
    );
    expect(await leftBehind()).toEqual({ documents: 0, kimi: 0, spooled: 0 });
    expect(
      sent('moonshot').map((r) => `${r.method} ${r.url.replace(/\/files\/c[a-z0-9]{19}/, '/files/{id}')}`),
    ).toEqual([
      'POST /moonshot/v1/files',
      'GET /moonshot/v1/files/{id}/content',
      'POST /moonshot/v1/tokenizers/estimate-token-count',
      'DELETE /moonshot/v1/files/{id}',
    ]);
    expect(
      logs.json().filter((l) => l.msg === 'settled an upload whose store write got no answer: nothing of it is kept'),
    ).toHaveLength(1);
  }, 30_000);
});

describe('a delete while Redis hangs (SIGSTOP)', () => {
  it('holds on the other replica: a document it read before is refused, never served from its own copy, and gone once Redis answers', async () => {
    const doc = (
      await upload(a.url, { name: 'plan.md', data: 'Region 3 grew by 12 percent.' }, { provider: 'deepseek' })
    ).body.data.uploadChatDocument;
    const other = (await upload(a.url, { name: 'other.md', data: 'Another document.' }, { provider: 'deepseek' })).body
      .data.uploadChatDocument;
    // Replica b reads both (record and text) once.
    expect((await complete(b, [doc.id, other.id])).errors).toBeUndefined();
    expect(
      (await query(a, 'mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: doc.id })).data.deleteChatDocument,
    ).toBe(true);
    sandbox.record.clear();
    redis.pause();
    try {
      const refused = await complete(b, [doc.id]);
      expect(refused.errors![0]).toMatchObject({
        message: `The gateway's document store does not answer right now, so it cannot confirm that input.documents[0] "${doc.id}" still exists, and does not use a document it cannot confirm; retry in a moment.`,
        extensions: { code: 'INTERNAL_SERVER_ERROR', reason: 'DOCUMENT_STORE_UNAVAILABLE' },
      });
      // The same for a document that does exist: b cannot tell, so it refuses; and a delete on a is refused, not half done.
      expect((await complete(b, [other.id])).errors![0].extensions.reason).toBe('DOCUMENT_STORE_UNAVAILABLE');
      expect(
        (await query(a, 'mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: other.id })).errors![0].extensions
          .reason,
      ).toBe('DOCUMENT_STORE_UNAVAILABLE');
      expect((await query(b, LIST)).errors![0].extensions.reason).toBe('DOCUMENT_STORE_UNAVAILABLE');
      expect(sent('deepseek')).toEqual([]);
    } finally {
      redis.resume();
    }
    await until(
      () => [a, b].every((g) => g.services.state.status().status === 'ready'),
      'both replicas to reach Redis again',
    );
    expect((await complete(b, [doc.id])).errors![0].extensions.code).toBe('NOT_FOUND');
    expect((await complete(b, [other.id])).errors).toBeUndefined();
    expect(
      (await query(a, 'mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: other.id })).data.deleteChatDocument,
    ).toBe(true);
  }, 30_000);
});

describe("a client's share across replicas", () => {
  it('holds when one client races 6 uploads over both replicas at once: exactly what fits its share is kept', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        upload((i % 2 ? b : a).url, { name: `race${i}.md`, data: 'r'.repeat(300) }, { provider: 'deepseek' }),
      ),
    );
    expect(answers.filter((x) => !x.body.errors)).toHaveLength(3);
    expect(answers.flatMap((x) => x.body.errors ?? []).map((e) => e.extensions?.reason)).toEqual(
      Array(3).fill('DOCUMENT_CLIENT_SHARE_FULL'),
    );
    for (const d of await listed(a)) await query(b, 'mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: d.id });
    expect(await leftBehind()).toEqual({ documents: 0, kimi: 0, spooled: 0 });
  });
});

describe('a Redis restarted empty', () => {
  it("loses the documents; the upkeep finds the files it leaves at Kimi and deletes them, and never the operator's own", async () => {
    // Files made 20 minutes ago (the sandbox's clock): past the grace that covers uploads in flight.
    await fetch(`${sandbox.origin}/_sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offsetMs: -20 * 60_000 }),
    });
    const docs = [];
    for (const name of ['one.txt', 'two.txt']) {
      const { body } = await upload(b.url, { name, data: `The text of ${name}.` }, { provider: 'moonshot' });
      expect(body.errors).toBeUndefined();
      docs.push(body.data.uploadChatDocument);
    }
    // Files the operator put in the same account: one plain, one whose name imitates the gateway's label.
    for (const name of ['operator.txt', 'gw.doc_AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.forged.txt']) {
      const form = new FormData();
      form.append('purpose', 'file-extract');
      form.append('file', new Blob(['kept by the operator']), name);
      expect(
        (
          await fetch(`${sandbox.baseUrls.moonshot}/files`, {
            method: 'POST',
            headers: { authorization: 'Bearer sandbox' },
            body: form,
          })
        ).status,
      ).toBe(200);
    }
    // Each replica has seen this Redis (its upkeep's first look), then Redis restarts with nothing.
    await Promise.all([a, b].map((g) => g.services.domains.chatDocuments.upkeep.tick()));
    expect((await kimiFiles()).length).toBe(4);
    await redis.stop();
    await redis.start();
    expect(await listed(a)).toEqual([]);

    await until(async () => (await kimiFiles()).length === 2, 'the orphans to be deleted');
    expect((await kimiFiles()).map((f) => f.filename).sort()).toEqual([
      'gw.doc_AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.forged.txt',
      'operator.txt',
    ]);
    const deleted = logs.json().filter((l) => l.msg === 'deleted a provider file no document holds (an orphan)');
    expect(deleted.map((l) => l.document).sort()).toEqual(docs.map((d) => d.id).sort());
    expect((await complete(a, [docs[0].id])).errors![0].extensions.code).toBe('NOT_FOUND');
  }, 30_000);
});
