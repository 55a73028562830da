import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { upload } from '../../../support/documents.js';

// One client cannot hold the document store (issue 43): each client's share of it (CHAT_DOCUMENT_CLIENT_MAX_BYTES),
// and a lifetime (CHAT_DOCUMENT_TTL_S) after which a document and its file at the provider go.

const keys = { a: 'key-a-0123456789abcdef', b: 'key-b-0123456789abcdef', c: 'key-c-0123456789abcdef' };
const as = (key: string) => ({ 'x-api-key': key });
const LIST = '{ chatDocuments { id fileName } }';
const COMPLETE = 'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }';
const complete = (g: TestGateway, key: string, documents: string[]) =>
  g.query(
    COMPLETE,
    {
      input: {
        provider: 'deepseek',
        model: 'deepseek-flash',
        messages: [{ role: 'USER', content: 'Summarise it.' }],
        documents,
        reasoning: { enabled: false },
      },
    },
    as(key),
  );
const kimiFiles = async (g: TestGateway) =>
  (
    (await (
      await fetch(`${g.sandbox.baseUrls.moonshot}/files`, { headers: { authorization: 'Bearer sandbox' } })
    ).json()) as { data: Array<{ id: string; filename: string }> }
  ).data;

/** Waits (at most 10 s) until `done()`. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('each client has a share of the document store', () => {
  let g: TestGateway;
  beforeAll(async () => {
    // A store of 4,000 bytes: each client's share is a quarter by default, 1,000 bytes.
    g = await startTestGateway({
      GATEWAY_API_KEYS: Object.values(keys).join(','),
      CHAT_DOCUMENT_STORE_MAX_BYTES: '4000',
    });
  });
  afterAll(() => g?.close());

  it("refuses the upload past one client's share, naming the share and the fix, while every other client's uploads go on", async () => {
    const text = (n: number) => `${'lorem ipsum '.repeat(Math.ceil(n / 12))}`.slice(0, n);
    for (const i of [1, 2])
      expect(
        (
          await upload(
            g.gateway.url,
            { name: `a${i}.md`, data: text(450) },
            { provider: 'deepseek', headers: as(keys.a) },
          )
        ).body.data.uploadChatDocument.fileName,
      ).toBe(`a${i}.md`);
    const refused = await upload(
      g.gateway.url,
      { name: 'a3.md', data: text(450) },
      { provider: 'deepseek', headers: as(keys.a) },
    );
    expect(refused.body.errors![0]).toMatchObject({
      message:
        "Your documents may keep at most 1000 bytes of text (each client's share, set by CHAT_DOCUMENT_CLIENT_MAX_BYTES) and keep 900 bytes, too much to add the 450 bytes of a3.md; delete documents you no longer need (chatDocuments lists them, deleteChatDocument deletes one), or wait for older ones to expire (CHAT_DOCUMENT_TTL_S).",
      extensions: { code: 'BAD_USER_INPUT', reason: 'DOCUMENT_CLIENT_SHARE_FULL', argument: 'file' },
    });
    // At its share exactly, the next file is refused before it is read (nothing extracted, nothing spent).
    const filler = await upload(
      g.gateway.url,
      { name: 'fill.md', data: text(100) },
      { provider: 'deepseek', headers: as(keys.a) },
    );
    expect(filler.body.errors).toBeUndefined();
    const atShare = await upload(
      g.gateway.url,
      { name: 'big.pdf', data: 'not even a PDF' },
      { provider: 'deepseek', headers: as(keys.a) },
    );
    expect(atShare.body.errors![0].message).toBe(
      "Your documents may keep at most 1000 bytes of text (each client's share, set by CHAT_DOCUMENT_CLIENT_MAX_BYTES) and keep 1000 bytes; delete documents you no longer need (chatDocuments lists them, deleteChatDocument deletes one), or wait for older ones to expire (CHAT_DOCUMENT_TTL_S).",
    );
    await g.query(
      'mutation($id: ID!) { deleteChatDocument(id: $id) }',
      { id: filler.body.data.uploadChatDocument.id },
      as(keys.a),
    );
    // The store itself has room (900 of 4,000 bytes): two other clients upload as much as client a did, and more.
    for (const key of [keys.b, keys.c]) {
      for (const i of [1, 2])
        expect(
          (
            await upload(
              g.gateway.url,
              { name: `other${i}.md`, data: text(450) },
              { provider: 'deepseek', headers: as(key) },
            )
          ).body.errors,
        ).toBeUndefined();
    }
    expect((await g.query(LIST, {}, as(keys.b))).body.data.chatDocuments).toHaveLength(2);
    // A deleted document gives its bytes back to its client's share.
    const [newest] = (await g.query(LIST, {}, as(keys.a))).body.data.chatDocuments;
    await g.query('mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: newest.id }, as(keys.a));
    expect(
      (await upload(g.gateway.url, { name: 'a3.md', data: text(450) }, { provider: 'deepseek', headers: as(keys.a) }))
        .body.errors,
    ).toBeUndefined();
  });
  it('holds against one client racing uploads at its share: of 6 sent at once, exactly what fits is kept', async () => {
    const racer = { 'x-api-key': keys.c };
    for (const d of (await g.query(LIST, {}, racer)).body.data.chatDocuments)
      await g.query('mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: d.id }, racer);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        upload(g.gateway.url, { name: `race${i}.md`, data: 'r'.repeat(300) }, { provider: 'deepseek', headers: racer }),
      ),
    );
    expect(answers.filter((x) => !x.body.errors)).toHaveLength(3);
    expect(answers.flatMap((x) => x.body.errors ?? []).map((e) => e.extensions?.reason)).toEqual([
      'DOCUMENT_CLIENT_SHARE_FULL',
      'DOCUMENT_CLIENT_SHARE_FULL',
      'DOCUMENT_CLIENT_SHARE_FULL',
    ]);
    expect((await g.query(LIST, {}, racer)).body.data.chatDocuments).toHaveLength(3);
  });
});

describe("each client has the same share of a provider's files", () => {
  let g: TestGateway;
  beforeAll(async () => {
    // A share of a thousandth of the store: of Kimi's 1,000 files per account, one per client.
    g = await startTestGateway({
      GATEWAY_API_KEYS: Object.values(keys).join(','),
      CHAT_DOCUMENT_STORE_MAX_BYTES: '1000000',
      CHAT_DOCUMENT_CLIENT_MAX_BYTES: '1000',
    });
  });
  afterAll(() => g?.close());

  it("refuses a client's file past its share at Kimi before any request, while another client's goes up", async () => {
    expect(
      (
        await upload(
          g.gateway.url,
          { name: 'one.txt', data: 'first file' },
          { provider: 'moonshot', headers: as(keys.a) },
        )
      ).body.errors,
    ).toBeUndefined();
    g.clearUpstreamRequests();
    const refused = await upload(
      g.gateway.url,
      { name: 'two.txt', data: 'second file' },
      { provider: 'moonshot', headers: as(keys.a) },
    );
    expect(refused.body.errors![0]).toMatchObject({
      message:
        "Your documents may keep at most 1 file at moonshot (each client's share, set by CHAT_DOCUMENT_CLIENT_MAX_BYTES) and keep 1; delete documents you no longer need (chatDocuments lists them, deleteChatDocument deletes one), or wait for older ones to expire (CHAT_DOCUMENT_TTL_S).",
      extensions: { code: 'BAD_USER_INPUT', reason: 'DOCUMENT_CLIENT_SHARE_FULL', argument: 'provider' },
    });
    expect(g.upstreamRequests()).toEqual([]);
    expect(
      (
        await upload(
          g.gateway.url,
          { name: 'two.txt', data: 'second file' },
          { provider: 'moonshot', headers: as(keys.b) },
        )
      ).body.errors,
    ).toBeUndefined();
    expect(await kimiFiles(g)).toHaveLength(2);
  });
});

describe('a document lives CHAT_DOCUMENT_TTL_S', () => {
  let g: TestGateway;
  beforeAll(async () => {
    // A 2 s lifetime: the upkeep ticks every second (a tenth of the TTL, at least 1 s).
    g = await startTestGateway({ GATEWAY_API_KEYS: keys.a, CHAT_DOCUMENT_TTL_S: '2' });
  });
  afterAll(() => g?.close());

  it('is then refused by completions and left out of the list at once, and the sweep deletes its text and its file at Kimi', async () => {
    const kept = (
      await upload(
        g.gateway.url,
        { name: 'notes.md', data: 'Region 3 grew by 12 percent.' },
        { provider: 'deepseek', headers: as(keys.a) },
      )
    ).body.data.uploadChatDocument;
    const atKimi = (
      await upload(
        g.gateway.url,
        { name: 'kimi.txt', data: 'A file Kimi keeps.' },
        { provider: 'moonshot', headers: as(keys.a) },
      )
    ).body.data.uploadChatDocument;
    expect((await complete(g, keys.a, [kept.id, atKimi.id])).body.errors).toBeUndefined();
    expect(await kimiFiles(g)).toHaveLength(1);

    await new Promise((resolve) => setTimeout(resolve, 2_100));
    // (Requests are not cleared here: the sweep may already have run, on a tick just past the 2 s.)
    const late = await complete(g, keys.a, [kept.id]);
    expect(late.body.errors![0]).toMatchObject({
      message: `input.documents[0] names no document "${kept.id}" among yours; chatDocuments lists them.`,
      extensions: { code: 'NOT_FOUND' },
    });
    expect((await g.query(LIST, {}, as(keys.a))).body.data.chatDocuments).toEqual([]);
    // The sweep: Kimi's file deleted (one DELETE), the store emptied (the share is free again).
    await until(async () => (await kimiFiles(g)).length === 0);
    // Since the upload: one DELETE, the sweep's (the listings are this test's own polls).
    const sent = g
      .upstreamRequests()
      .map((r) => `${r.method} ${r.url.replace(/\/files\/c[a-z0-9]{19}/, '/files/{id}')}`);
    expect(sent.filter((r) => r.startsWith('DELETE '))).toEqual(['DELETE /moonshot/v1/files/{id}']);
    const store = g.gateway.services.state.documents('chat', { maxTextBytes: 1 });
    await until(async () => (await store.expired(10)).length === 0);
    expect(await store.get(atKimi.id)).toBeUndefined();
    expect(
      g.logs
        .json()
        .filter((l) => l.msg === 'chat document expired and deleted')
        .map((l) => l.document)
        .sort(),
    ).toEqual([kept.id, atKimi.id].sort());
  });
});
