import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { makePdf, reportPages, upload } from '../../../support/documents.js';

// Chat documents end to end (docs/chat.md, "Documents"): uploads through the real server, Kimi's files API in the
// sandbox, completions that name documents; every request the providers saw is counted.

const COMPLETE = `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) { content usage { promptTokens cachedPromptTokens totalTokens } }
}`;
const LIST = '{ chatDocuments { id provider fileName bytes tokens status } }';
const DELETE = 'mutation Delete($id: ID!) { deleteChatDocument(id: $id) }';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t?.close());
beforeEach(async () => {
  t.sandbox.faults.clear();
  await fetch(`${t.sandbox.origin}/_sandbox/reset`, { method: 'POST' });
  // Each test starts with no documents of its own.
  for (const d of (await t.query(LIST)).body.data?.chatDocuments ?? []) await t.query(DELETE, { id: d.id });
  t.clearUpstreamRequests();
});

const requests = (upstream?: string) =>
  t.upstreamRequests(upstream).map((r) => `${r.method} ${r.url.replace(/\/files\/c[a-z0-9]{19}/, '/files/{id}')}`);
const kimiFiles = async () =>
  (
    (await (
      await fetch(`${t.sandbox.baseUrls.moonshot}/files`, { headers: { authorization: 'Bearer sandbox' } })
    ).json()) as { data: unknown[] }
  ).data;
const ask = (
  provider: string,
  model: string,
  documents: string[],
  content = 'What does the report say about region 3?',
) =>
  t.query(COMPLETE, {
    input: { provider, model, messages: [{ role: 'USER', content }], documents, reasoning: { enabled: false } },
  });

describe('uploadChatDocument', () => {
  it('sends a PDF to Kimi once: the upload, its extracted text and its token count, three requests in all', async () => {
    const pdf = makePdf(reportPages(3));
    const { status, body } = await upload(
      t.gateway.url,
      { name: 'report.pdf', data: pdf, type: 'application/pdf' },
      { provider: 'moonshot' },
    );
    expect(status).toBe(200);
    expect(body.data.uploadChatDocument).toEqual({
      id: expect.stringMatching(/^doc_/),
      provider: 'moonshot',
      fileName: 'report.pdf',
      bytes: pdf.length,
      tokens: expect.any(Number),
      status: 'READY',
      createdAt: expect.any(String),
    });
    expect(requests()).toEqual([
      'POST /moonshot/v1/files',
      'GET /moonshot/v1/files/{id}/content',
      'POST /moonshot/v1/tokenizers/estimate-token-count',
    ]);
    const [sent, , counted] = t.upstreamRequests('moonshot');
    expect(sent.headers['content-length']).toBe(String(Number(sent.headers['content-length'])));
    // Named with the document's id and a MAC only this deployment can make (the orphan reconcile's proof).
    expect(sent.body.replace(/\.[\w-]{22}\./, '.{mac}.')).toBe(
      `multipart/form-data: purpose=file-extract, file=gw.${body.data.uploadChatDocument.id}.{mac}.report.pdf (${pdf.length} bytes)`,
    );
    // Kimi's own count of the text as the system message it becomes.
    const countBody = JSON.parse(counted.body);
    expect(countBody.messages).toEqual([{ role: 'system', content: expect.stringContaining('Page 3, line 45:') }]);
    expect(body.data.uploadChatDocument.tokens).toBeGreaterThan(2000);
    expect(await kimiFiles()).toHaveLength(1);
    // The answer's cost counts the three; the estimate, a bound, also has room for the delete of a failed upload.
    expect(body.extensions?.cost).toMatchObject({ upstreamRequestsEstimated: 4, upstreamRequests: 3 });
  });

  it('extracts text here for a provider without a files API, with no upstream request at all', async () => {
    const md = '# Plan\n\nShip the gateway on Tuesday. Region 3 grew by 12 percent.\n';
    const { body } = await upload(
      t.gateway.url,
      { name: 'plan.md', data: md, type: 'text/markdown' },
      { provider: 'deepseek' },
    );
    expect(body.data.uploadChatDocument).toMatchObject({
      provider: 'deepseek',
      fileName: 'plan.md',
      bytes: md.length,
      status: 'READY',
    });
    const pdf = await upload(t.gateway.url, { name: 'report.pdf', data: makePdf(reportPages(2)) });
    expect(pdf.body.data.uploadChatDocument).toMatchObject({ provider: null, fileName: 'report.pdf', status: 'READY' });
    expect(requests()).toEqual([]);
  });

  it("lists the caller's documents newest first and deletes one, with the file at Kimi", async () => {
    const a = (await upload(t.gateway.url, { name: 'a.txt', data: 'alpha text' }, { provider: 'moonshot' })).body.data
      .uploadChatDocument;
    const b = (await upload(t.gateway.url, { name: 'b.txt', data: 'beta text' }, { provider: 'glm' })).body.data
      .uploadChatDocument;
    expect((await t.query(LIST)).body.data.chatDocuments.map((d: { id: string }) => d.id)).toEqual([b.id, a.id]);
    t.clearUpstreamRequests();
    // The delete is one request to Kimi, as estimated, and the answer says so.
    expect((await t.query(DELETE, { id: a.id })).body).toEqual({
      data: { deleteChatDocument: true },
      extensions: { cost: { estimated: 10, actual: 10, upstreamRequestsEstimated: 1, upstreamRequests: 1 } },
    });
    expect(requests()).toEqual(['DELETE /moonshot/v1/files/{id}']);
    expect(await kimiFiles()).toEqual([]);
    t.clearUpstreamRequests();
    // The gateway kept b's text itself: nothing to delete upstream.
    expect((await t.query(DELETE, { id: b.id })).body.data.deleteChatDocument).toBe(true);
    expect(requests()).toEqual([]);
    const again = await t.query(DELETE, { id: b.id });
    expect(again.body.errors![0]).toMatchObject({
      message: `There is no document "${b.id}" among yours; chatDocuments lists them.`,
      extensions: { code: 'NOT_FOUND' },
    });
    expect((await t.query(LIST)).body.data.chatDocuments).toEqual([]);
  });

  it('keeps the document when Kimi fails to delete its file, so the file is never orphaned', async () => {
    const a = (await upload(t.gateway.url, { name: 'a.txt', data: 'alpha text' }, { provider: 'moonshot' })).body.data
      .uploadChatDocument;
    t.sandbox.faults.push({ upstream: 'moonshot', times: 1, status: 500, match: '/files/' });
    const failed = await t.query(DELETE, { id: a.id });
    expect(failed.body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'moonshot' });
    expect((await t.query(LIST)).body.data.chatDocuments).toHaveLength(1);
    expect((await t.query(DELETE, { id: a.id })).body.data.deleteChatDocument).toBe(true);
    expect(await kimiFiles()).toEqual([]);
  });
});

describe('documents in completions', () => {
  it('runs a ten-turn conversation over one 300-page document with one upload, one content read and ten completions', async () => {
    const pdf = makePdf(reportPages(300));
    const doc = (
      await upload(
        t.gateway.url,
        { name: 'annual-report.pdf', data: pdf, type: 'application/pdf' },
        { provider: 'moonshot' },
      )
    ).body.data.uploadChatDocument;
    const usages = [];
    const messages: Array<{ role: string; content: string }> = [];
    for (let turn = 1; turn <= 10; turn++) {
      messages.push({ role: 'USER', content: `Question ${turn}: what happened in region ${turn}?` });
      const { body } = await t.query(COMPLETE, {
        input: {
          provider: 'moonshot',
          model: 'kimi-k2.6',
          messages,
          documents: [doc.id],
          reasoning: { enabled: false },
        },
      });
      expect(body.errors).toBeUndefined();
      messages.push({ role: 'ASSISTANT', content: body.data.createChatCompletion.content });
      usages.push(body.data.createChatCompletion.usage);
    }
    const seen = requests('moonshot');
    expect(seen.filter((r) => r === 'POST /moonshot/v1/files')).toHaveLength(1);
    expect(seen.filter((r) => r.endsWith('/content'))).toHaveLength(1);
    expect(seen.filter((r) => r === 'POST /moonshot/v1/chat/completions')).toHaveLength(10);
    expect(seen).toHaveLength(13);
    // The text goes in every request, as Kimi asks, right after the caller's own system messages.
    for (const r of t.upstreamRequests('moonshot').filter((x) => x.url.endsWith('/chat/completions'))) {
      const sent = JSON.parse(r.body).messages;
      expect(sent[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Page 300, line 45:') });
    }
    // From the second turn on, the document's prefix is served from Kimi's cache.
    expect(usages[0].cachedPromptTokens ?? 0).toBe(0);
    for (const u of usages.slice(1)) expect(u.cachedPromptTokens).toBeGreaterThan(doc.tokens * 0.9);
  });

  it("puts the text where Kimi puts a file: after the caller's system messages, before the conversation, on any provider", async () => {
    const doc = (
      await upload(
        t.gateway.url,
        { name: 'facts.txt', data: 'The sky is green on Tuesdays.' },
        { provider: 'moonshot' },
      )
    ).body.data.uploadChatDocument;
    t.clearUpstreamRequests();
    const { body } = await t.query(COMPLETE, {
      input: {
        provider: 'deepseek',
        model: 'deepseek-flash',
        messages: [
          { role: 'SYSTEM', content: 'Be brief.' },
          { role: 'USER', content: 'What colour is the sky?' },
        ],
        documents: [doc.id],
        reasoning: { enabled: false },
      },
    });
    expect(body.errors).toBeUndefined();
    // Read from the shared cache: Kimi is not asked again.
    expect(requests()).toEqual(['POST /deepseek/v1/chat/completions']);
    expect(JSON.parse(t.upstreamRequests('deepseek')[0].body).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Document: facts.txt\n\nThe sky is green on Tuesdays.' },
      { role: 'user', content: 'What colour is the sky?' },
    ]);
  });

  it('streams over a document too (chatCompletionStream)', async () => {
    const doc = (
      await upload(t.gateway.url, { name: 'facts.txt', data: 'Streams carry documents as well.' }, { provider: 'glm' })
    ).body.data.uploadChatDocument;
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        query: 'subscription S($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { finishReason } }',
        variables: {
          input: {
            provider: 'glm',
            model: 'glm-4-flash',
            messages: [{ role: 'USER', content: 'Go.' }],
            documents: [doc.id],
          },
        },
      }),
    });
    expect(await res.text()).toContain('"finishReason":"STOP"');
    expect(JSON.parse(t.upstreamRequests('glm')[0].body).messages[0]).toEqual({
      role: 'system',
      content: 'Document: facts.txt\n\nStreams carry documents as well.',
    });
  });

  it("refuses a document the model's window cannot hold, naming the model and the sizes, before any request", async () => {
    const doc = (
      await upload(
        t.gateway.url,
        { name: 'annual-report.pdf', data: makePdf(reportPages(300)) },
        { provider: 'deepseek' },
      )
    ).body.data.uploadChatDocument;
    t.clearUpstreamRequests();
    const { body } = await ask('glm', 'glm-4-flash', [doc.id]);
    expect(body.errors![0].message).toMatch(
      new RegExp(
        `^The prompt is about \\d+ tokens \\(annual-report\\.pdf ${doc.tokens} of them from documents\\), more than glm model glm-4-flash's context window of 128000 tokens; leave out documents`,
      ),
    );
    expect(body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'input.documents',
      documentTokens: doc.tokens,
      contextWindow: 128_000,
    });
    expect(requests()).toEqual([]);
    // A model with a million tokens takes it.
    expect((await ask('deepseek', 'deepseek-flash', [doc.id])).body.errors).toBeUndefined();
  });

  it("refuses an id that is not the caller's, a repeated one, and more than 20, before any request", async () => {
    const doc = (await upload(t.gateway.url, { name: 'a.txt', data: 'text' }, { provider: 'moonshot' })).body.data
      .uploadChatDocument;
    t.clearUpstreamRequests();
    expect((await ask('moonshot', 'kimi-k2.6', ['doc_nope'])).body.errors![0]).toMatchObject({
      message: 'input.documents[0] names no document "doc_nope" among yours; chatDocuments lists them.',
      extensions: { code: 'NOT_FOUND', argument: 'input.documents[0]' },
    });
    expect((await ask('moonshot', 'kimi-k2.6', [doc.id, doc.id])).body.errors![0].message).toBe(
      `input.documents[1] names "${doc.id}" a second time; name each document once.`,
    );
    expect(
      (
        await ask(
          'moonshot',
          'kimi-k2.6',
          Array.from({ length: 21 }, (_, i) => `doc_${i}`),
        )
      ).body.errors![0].message,
    ).toBe('documents names 21 documents; a completion takes at most 20.');
    expect(requests()).toEqual([]);
  });

  it('marks a document UNAVAILABLE when Kimi no longer has its file, and says to upload it again', async () => {
    const gw = await startTestGateway({ CHAT_DOCUMENT_CACHE_MAX_BYTES: '1' });
    try {
      const doc = (await upload(gw.gateway.url, { name: 'a.txt', data: 'text kept at Kimi' }, { provider: 'moonshot' }))
        .body.data.uploadChatDocument;
      for (const f of (
        await (
          await fetch(`${gw.sandbox.baseUrls.moonshot}/files`, { headers: { authorization: 'Bearer sandbox' } })
        ).json()
      ).data) {
        await fetch(`${gw.sandbox.baseUrls.moonshot}/files/${f.id}`, {
          method: 'DELETE',
          headers: { authorization: 'Bearer sandbox' },
        });
      }
      gw.clearUpstreamRequests();
      const input = {
        provider: 'moonshot',
        model: 'kimi-k2.6',
        messages: [{ role: 'USER', content: 'Hi' }],
        documents: [doc.id],
      };
      const first = await gw.query(COMPLETE, { input });
      expect(first.body.errors![0].message).toBe(
        `Document ${doc.id} (a.txt) is gone from moonshot (its file was deleted outside the gateway); delete the document and upload the file again.`,
      );
      expect(gw.upstreamRequests().map((r) => r.method)).toEqual(['GET']);
      expect((await gw.query(LIST)).body.data.chatDocuments[0].status).toBe('UNAVAILABLE');
      const second = await gw.query(COMPLETE, { input });
      expect(second.body.errors![0].message).toContain('is UNAVAILABLE');
      expect(gw.upstreamRequests()).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });
});
