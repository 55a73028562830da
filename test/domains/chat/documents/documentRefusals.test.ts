import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { makePdf, multipartBody, ownSpool, reportPages, upload, type UploadFile } from '../../../support/documents.js';

// Every bad upload of issue 33 gets a clear error, costs no upstream request where none is needed, and leaves
// nothing behind: no file at the provider, no document, no spooled temporary file.

const spooled = ownSpool();

const LIST = '{ chatDocuments { id fileName } }';
const auth = { authorization: 'Bearer sandbox' };

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({
    CHAT_DOCUMENT_MAX_BYTES: String(64 * 1024),
    UPSTREAM_MAX_RESPONSE_BYTES: String(32 * 1024),
  });
});
afterAll(() => t?.close());
beforeEach(async () => {
  t.sandbox.faults.clear();
  await fetch(`${t.sandbox.origin}/_sandbox/reset`, { method: 'POST' });
  for (const d of (await t.query(LIST)).body.data?.chatDocuments ?? [])
    await t.query('mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: d.id });
  t.clearUpstreamRequests();
});

const requests = () =>
  t.upstreamRequests().map((r) => `${r.method} ${r.url.replace(/\/files\/c[a-z0-9]{19}/, '/files/{id}')}`);
const kimiFiles = async () =>
  (
    (await (await fetch(`${t.sandbox.baseUrls.moonshot}/files`, { headers: auth })).json()) as {
      data: Array<{ filename: string }>;
    }
  ).data;
/** What was left: the provider's files, the caller's documents, spooled files (read after the response closed). */
async function leftBehind(): Promise<{ kimi: number; documents: number; spooled: number }> {
  const kimi = (await kimiFiles()).length;
  const documents = (await t.query(LIST)).body.data.chatDocuments.length;
  // graphql-upload removes a request's spooled file once the response has closed, a moment after the client read it:
  // wait for that (bounded), rather than a fixed 50 ms a loaded machine can outrun. A file part read after a refusal
  // made from the fields alone is spooled only then, and released as it arrives: the folder must stay empty for a
  // while, not be empty once (CI at be57dd6, Node 20: empty at the first look, the late file there at the second).
  await until(async () => {
    if (spooled().length) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
    return spooled().length === 0;
  });
  return { kimi, documents, spooled: spooled().length };
}
const nothing = { kimi: 0, documents: 0, spooled: 0 };

/** Uploads `file` and answers the first error, with the upstream requests it cost. */
async function refused(file: UploadFile, provider?: string) {
  const { body } = await upload(t.gateway.url, file, { provider });
  expect(body.data?.uploadChatDocument ?? null).toBeNull();
  return { error: body.errors![0], upstream: requests() };
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('bad uploads: a clear error, no upstream request', () => {
  it('an unsupported type: an image for the gateway to read, an .exe for Kimi', async () => {
    const image = await refused({ name: 'chart.png', data: PNG, type: 'image/png' }, 'deepseek');
    expect(image.error.message).toBe(
      'The gateway does not extract text from binary files of this type (chart.png); it reads PDF, plain text and Markdown (UTF-8; also .csv, .json, .yaml, .xml, .html, .log); upload it with provider "moonshot", whose files API reads Word, slides, images and more.',
    );
    expect(image.error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'file' });
    expect(image.upstream).toEqual([]);
    const exe = await refused({ name: 'tool.exe', data: Buffer.from('MZ\u0090\u0000binary') }, 'moonshot');
    expect(exe.error.message).toMatch(
      /^moonshot's files API does not read \.exe files \(tool\.exe\); it takes \.pdf \.txt \.csv/,
    );
    expect(exe.upstream).toEqual([]);
    // Bytes that are not UTF-8 are not text, whatever the name says.
    const latin1 = await refused({ name: 'notes.txt', data: Buffer.from([0x66, 0xe9, 0xe9, 0x0a]) }, 'glm');
    expect(latin1.error.message).toContain('does not extract text from binary files of this type (notes.txt)');
    expect(await leftBehind()).toEqual(nothing);
  });

  it('a text file for Kimi longer than the gateway reads back (UPSTREAM_MAX_RESPONSE_BYTES)', async () => {
    const long = await refused({ name: 'long.txt', data: 'word '.repeat(8000) }, 'moonshot');
    expect(long.error.message).toBe(
      "long.txt is 39 KiB (40000 bytes) of text; the gateway reads at most 32 KiB (32768 bytes) of extracted text back from moonshot (UPSTREAM_MAX_RESPONSE_BYTES), and no model's context window holds that much. Split it, or upload the parts you need.",
    );
    expect(long.upstream).toEqual([]);
  });

  it('an empty file', async () => {
    for (const provider of ['moonshot', 'deepseek']) {
      const empty = await refused({ name: 'empty.txt', data: '' }, provider);
      expect(empty.error.message).toBe('empty.txt is empty (0 bytes); upload a file with content.');
      expect(empty.upstream).toEqual([]);
    }
    expect(await leftBehind()).toEqual(nothing);
  });

  it('a truncated multipart body: the request ends before the file does', async () => {
    const { contentType, body } = multipartBody({ name: 'notes.txt', data: 'x'.repeat(5000) }, 'moonshot');
    // The body is complete as HTTP goes (its Content-Length is right), but the file part never ends.
    const cut = body.subarray(0, body.length - 2000);
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': contentType, 'apollo-require-preflight': 'true' },
      body: new Uint8Array(cut),
    });
    const answer = (await res.json()) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
    expect(answer.errors[0].message).toBe(
      'The upload broke off before the whole file arrived (Unexpected end of form); nothing was sent upstream. Send the request again.',
    );
    expect(answer.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'UPLOAD_INCOMPLETE' });
    expect(requests()).toEqual([]);
    expect(await leftBehind()).toEqual(nothing);
  });

  it('a body that claims one size and sends another', async () => {
    const { contentType, body } = multipartBody({ name: 'notes.txt', data: 'y'.repeat(20_000) }, 'moonshot');
    // Claims fewer bytes than it sends: the server reads what was claimed, which ends inside the file; the bytes
    // after it are no request at all (HTTP 400 from Node's parser, then the connection is closed).
    const short = await rawExchange(
      `POST /graphql HTTP/1.1\r\nhost: ${new URL(t.gateway.url).host}\r\ncontent-type: ${contentType}\r\napollo-require-preflight: true\r\ncontent-length: ${body.length - 5000}\r\n\r\n`,
      body,
      body.length - 5000,
    );
    expect(short).toMatch(/^HTTP\/1\.1 200/);
    expect(short).toContain('The upload broke off before the whole file arrived (Unexpected end of form)');
    // Claims more than it sends, then the client goes away: nothing is answered, nothing is kept.
    const long = connect({ host: '127.0.0.1', port: Number(new URL(t.gateway.url).port) });
    long.on('error', () => undefined);
    await new Promise<void>((resolve) => long.once('connect', () => resolve()));
    long.write(
      `POST /graphql HTTP/1.1\r\nhost: ${new URL(t.gateway.url).host}\r\ncontent-type: ${contentType}\r\napollo-require-preflight: true\r\ncontent-length: ${body.length + 5000}\r\n\r\n`,
    );
    long.write(body.subarray(0, body.length - 3000));
    await new Promise((resolve) => setTimeout(resolve, 100));
    long.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(requests()).toEqual([]);
    expect(await leftBehind()).toEqual(nothing);
  });

  it('a PDF that does not parse: cut short, not a PDF at all, or broken inside', async () => {
    const pdf = makePdf(reportPages(2));
    for (const provider of ['moonshot', 'deepseek']) {
      const cut = await refused({ name: 'report.pdf', data: pdf.subarray(0, pdf.length - 200) }, provider);
      expect(cut.error.message).toBe(
        'report.pdf is a PDF that does not parse: it does not end with its trailer (startxref … %%EOF), so it is cut short or damaged.',
      );
      const fake = await refused({ name: 'report.pdf', data: 'just some words' }, provider);
      expect(fake.error.message).toBe('report.pdf is not a PDF: it does not begin with %PDF-.');
      expect(requests()).toEqual([]);
    }
    // Header and trailer in place, nothing readable between: the gateway finds out itself, Kimi after the upload.
    const broken = Buffer.from(
      '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\nthis is not a page tree\nstartxref\n9\n%%EOF\n',
      'latin1',
    );
    const here = await refused({ name: 'broken.pdf', data: broken }, 'deepseek');
    expect(here.error.message).toMatch(/^broken\.pdf is a PDF the gateway cannot read: it does not parse \(.+\)\.$/);
    expect(requests()).toEqual([]);
    const there = await refused({ name: 'broken.pdf', data: broken }, 'moonshot');
    expect(there.error.message).toMatch(
      /^The moonshot service could not extract text from "broken\.pdf": failed to parse the PDF/,
    );
    // The file Kimi kept is deleted before the error is answered.
    expect(there.upstream).toEqual(['POST /moonshot/v1/files', 'DELETE /moonshot/v1/files/{id}']);
    expect(await leftBehind()).toEqual(nothing);
  });

  it('a file over CHAT_DOCUMENT_MAX_BYTES: refused at once by its Content-Length, or once it passes the limit when chunked', async () => {
    // The Content-Length check leaves room for the operation's fields (up to 1 MiB); busboy's count is exact.
    const big = { name: 'big.txt', data: 'z'.repeat(2 * 1024 * 1024) };
    const { contentType, body } = multipartBody(big, 'moonshot');
    const declared = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': contentType, 'apollo-require-preflight': 'true' },
      body: new Uint8Array(body),
    });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { errors: Array<{ message: string }> }).errors[0].message).toBe(
      `This upload is 2.0 MiB (${body.length} bytes); a file may have at most 64 KiB (65536 bytes) (CHAT_DOCUMENT_MAX_BYTES). Nothing was sent upstream.`,
    );
    const chunked = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': contentType, 'apollo-require-preflight': 'true' },
      body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(body)), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    const answer = (await chunked.json()) as {
      errors: Array<{ message: string; extensions: Record<string, unknown> }>;
    };
    expect(answer.errors[0].message).toBe(
      'The file is larger than 64 KiB (65536 bytes), the limit CHAT_DOCUMENT_MAX_BYTES sets; nothing was sent upstream.',
    );
    expect(answer.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'DOCUMENT_TOO_LARGE' });
    expect(requests()).toEqual([]);
    expect(await leftBehind()).toEqual(nothing);
  });

  it("Kimi's own limits, counted over the gateway's documents: 1,000 files, then 10 GB in all", async () => {
    const store = t.gateway.services.state.documents('chat', { maxTextBytes: 1 });
    const fake = (i: number, bytes: number) => ({
      id: `doc_fake${i}`,
      owner: 'someone-else',
      provider: 'moonshot',
      fileId: `cfake${i}`,
      fileName: `${i}.txt`,
      mediaType: 'text/plain',
      bytes,
      tokens: 1,
      status: 'ready' as const,
      createdAt: i,
    });
    try {
      await limits(store, fake);
    } finally {
      for (let i = 0; i < 1000; i++) await store.remove(`doc_fake${i}`);
    }
  });

  async function limits(
    store: ReturnType<TestGateway['gateway']['services']['state']['documents']>,
    fake: (i: number, bytes: number) => Parameters<typeof store.add>[0],
  ) {
    for (let i = 0; i < 1000; i++) await store.add(fake(i, 10));
    const count = await refused({ name: 'one-more.txt', data: 'text' }, 'moonshot');
    expect(count.error.message).toBe(
      "moonshot keeps at most 1000 files per account, and this gateway's documents hold 1000 there; delete documents you no longer need (deleteChatDocument) first.",
    );
    expect(count.upstream).toEqual([]);
    for (let i = 1; i < 1000; i++) await store.remove(`doc_fake${i}`);
    await store.remove('doc_fake0');
    await store.add(fake(0, 10 * 1024 ** 3 - 10));
    const total = await refused({ name: 'one-more.txt', data: 'some more text' }, 'moonshot');
    expect(total.error.message).toBe(
      "moonshot keeps at most 10240 MiB (10737418240 bytes) of files per account; this gateway's documents hold 10240.0 MiB (10737418230 bytes) there, too much to add one-more.txt (14 bytes). Delete documents you no longer need first.",
    );
    expect(total.upstream).toEqual([]);
  }

  it('an unknown provider, and a gateway store with no room left', async () => {
    const unknown = await refused({ name: 'a.txt', data: 'text' }, 'openai');
    expect(unknown.error.message).toBe(
      'Unknown chat provider "openai"; use one of glm, ark, deepseek, moonshot, or leave provider out for the gateway to extract the text.',
    );
    const small = await startTestGateway({ CHAT_DOCUMENT_STORE_MAX_BYTES: '100' });
    try {
      const full = await upload(
        small.gateway.url,
        { name: 'long.md', data: 'w '.repeat(100) },
        { provider: 'deepseek' },
      );
      expect(full.body.errors![0]).toMatchObject({
        message:
          'The gateway keeps at most 100 bytes of document text (CHAT_DOCUMENT_STORE_MAX_BYTES) and has no room for the 200 bytes of long.md; delete documents you no longer need first.',
        extensions: { code: 'BAD_USER_INPUT', reason: 'DOCUMENT_STORE_FULL' },
      });
      expect(small.upstreamRequests()).toEqual([]);
    } finally {
      await small.close();
    }
  });
});

describe('the multipart request itself', () => {
  it('needs a preflighted header (CSRF): without Apollo-Require-Preflight or X-Apollo-Operation-Name it is refused unread', async () => {
    const { contentType, body } = multipartBody({ name: 'a.txt', data: 'text' }, 'moonshot');
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(body),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ message: string }> }).errors[0].message).toContain(
      'Cross-Site Request Forgery',
    );
    const named = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-apollo-operation-name': 'Upload' },
      body: new Uint8Array(body),
    });
    expect(((await named.json()) as { data: unknown }).data).toMatchObject({
      uploadChatDocument: { fileName: 'a.txt' },
    });
  });

  it('takes one operation and one file per request, and says how the fields go', async () => {
    const form = (fields: Array<[string, string | Blob, string?]>) => {
      const f = new FormData();
      for (const [k, v, name] of fields) {
        if (name) f.append(k, v as Blob, name);
        else f.append(k, v as string);
      }
      return fetch(t.gateway.url, { method: 'POST', headers: { 'apollo-require-preflight': 'true' }, body: f }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as any }),
      );
    };
    const op = {
      query: 'mutation($file: Upload!) { uploadChatDocument(file: $file) { id } }',
      variables: { file: null },
    };
    const batch = await form([
      ['operations', JSON.stringify([op, op])],
      ['map', '{"0":["0.variables.file"]}'],
      ['0', new Blob(['a']), 'a.txt'],
    ]);
    expect(batch).toMatchObject({
      status: 400,
      body: {
        errors: [
          {
            message:
              'A multipart request may carry one operation, not a batch; send each operation in a request of its own.',
          },
        ],
      },
    });
    const two = await form([
      ['operations', JSON.stringify(op)],
      ['map', '{"0":["variables.file"],"1":["variables.other"]}'],
      ['0', new Blob(['a']), 'a.txt'],
      ['1', new Blob(['b']), 'b.txt'],
    ]);
    expect(two).toMatchObject({
      status: 413,
      body: { errors: [{ message: 'A multipart request may carry 1 file; send each file in a request of its own.' }] },
    });
    const noMap = await form([
      ['operations', JSON.stringify(op)],
      ['0', new Blob(['a']), 'a.txt'],
    ]);
    expect(noMap.status).toBe(400);
    expect(noMap.body.errors[0].message).toBe(
      'Misordered multipart fields; files should follow ‘map’. A GraphQL multipart request has the fields "operations" (the operation as JSON), then "map" (which variable each file fills), then the files.',
    );
    expect(requests()).toEqual([]);
    expect(await leftBehind()).toEqual(nothing);
  });

  it('a map that puts the file in a variable the operation lacks, or outside the variables: BAD_USER_INPUT naming where and the fix, before any request', async () => {
    const send = async (operations: unknown, map: unknown) => {
      const f = new FormData();
      f.append('operations', JSON.stringify(operations));
      f.append('map', JSON.stringify(map));
      f.append('0', new Blob(['hello']), 'a.txt');
      const r = await fetch(t.gateway.url, {
        method: 'POST',
        headers: { 'apollo-require-preflight': 'true' },
        body: f,
      });
      return {
        status: r.status,
        body: (await r.json()) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> },
      };
    };
    const one = 'mutation($file: Upload!) { uploadChatDocument(file: $file, provider: "moonshot") { id } }';
    const lacking = await send({ query: one, variables: { file: null } }, { 0: ['variables.document'] });
    expect(lacking.status).toBe(400);
    expect(lacking.body.errors[0]).toEqual({
      message:
        'The multipart "map" field puts a file in "variables.document", but the operation declares no variable $document: map it to "variables.file", the operation\'s variable of type Upload (e.g. {"0": ["variables.file"]}).',
      extensions: { code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST', argument: 'map' },
    });
    const nested = await send({ query: one }, { 0: ['variables.input.file'] });
    expect(nested.body.errors[0].message).toContain(
      'puts a file in "variables.input.file", but the operation declares no variable $input',
    );
    const outside = await send({ query: one, variables: { file: null } }, { 0: ['extensions.file'] });
    expect(outside.body.errors[0].message).toMatch(
      /^The multipart "map" field puts a file at "extensions.file", outside "variables": map it to "variables.file"/,
    );
    // An operation that takes no file at all is told to declare one.
    const none = await send(
      { query: 'mutation($id: ID!) { deleteChatDocument(id: $id) }', variables: { id: 'doc_x' } },
      { 0: ['variables.file'] },
    );
    expect(none.body.errors[0].message).toContain('declare a variable of type Upload that takes it');
    expect(requests()).toEqual([]);
    expect(await leftBehind()).toEqual(nothing);
  });

  it('answers a document that does not validate as Apollo does, and releases the file', async () => {
    const { body } = await upload(
      t.gateway.url,
      { name: 'a.txt', data: 'text' },
      { query: 'mutation($file: Upload!) { uploadChatDocument(file: $file) { nope } }' },
    );
    expect(body.errors![0]).toMatchObject({
      message: 'Cannot query field "nope" on type "ChatDocument".',
      extensions: { code: 'BAD_USER_INPUT', reason: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(await leftBehind()).toEqual(nothing);
  });

  it('refuses a file sent any other way (a JSON variable, a WebSocket) with how to send it', async () => {
    const mutation = 'mutation($file: Upload!) { uploadChatDocument(file: $file) { id } }';
    const json = await t.query(mutation, { file: 'report.pdf' });
    const how =
      'Variable "$file" got invalid value "report.pdf"; Upload value invalid: send the file in a GraphQL multipart request (POST /graphql, Content-Type: multipart/form-data with the "operations" and "map" fields and an Apollo-Require-Preflight header), as Apollo Client\'s and urql\'s upload links do.';
    expect(json.body.errors![0]).toMatchObject({ message: how, extensions: { code: 'BAD_USER_INPUT' } });
    const ws = createClient({ url: t.gateway.wsUrl, webSocketImpl: WebSocket, retryAttempts: 0 });
    // A variable that does not coerce is refused before execution: graphql-ws's `error` message.
    const result = await new Promise<any>((resolve) =>
      ws.subscribe(
        { query: mutation, variables: { file: 'report.pdf' } },
        { next: resolve, error: (errors) => resolve({ errors }), complete: () => undefined },
      ),
    );
    await ws.dispose();
    expect(result.errors[0].message).toBe(how);
    expect(requests()).toEqual([]);
  });
});

describe('uploads that fail half way leave nothing at the provider', () => {
  it('Kimi fails to give the extracted text: its file is deleted before the error', async () => {
    t.sandbox.faults.push({ upstream: 'moonshot', times: 1, status: 500, match: '/content' });
    const { error, upstream } = await refused({ name: 'a.txt', data: 'text' }, 'moonshot');
    expect(error.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'moonshot', status: 500 });
    expect(upstream).toEqual([
      'POST /moonshot/v1/files',
      'GET /moonshot/v1/files/{id}/content',
      'DELETE /moonshot/v1/files/{id}',
    ]);
    expect(await leftBehind()).toEqual(nothing);
  });

  it("Kimi's answer to the upload is lost: the gateway finds the file it kept and deletes it", async () => {
    t.sandbox.faults.push({ upstream: 'moonshot', times: 1, cutAfterChunks: 0, match: '/files' });
    const { error, upstream } = await refused({ name: 'lost.txt', data: 'the answer is lost' }, 'moonshot');
    expect(error.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'moonshot' });
    expect(upstream).toEqual(['POST /moonshot/v1/files', 'GET /moonshot/v1/files', 'DELETE /moonshot/v1/files/{id}']);
    expect(await leftBehind()).toEqual(nothing);
  });

  it('the caller leaves while the file goes to Kimi: the upload is aborted, and nothing is kept', async () => {
    t.sandbox.faults.push({ upstream: 'moonshot', times: 1, delayMs: 1500, match: '/files' });
    const leaving = new AbortController();
    const sent = upload(
      t.gateway.url,
      { name: 'left.txt', data: 'caller leaves' },
      { provider: 'moonshot', signal: leaving.signal },
    ).catch(() => undefined);
    await until(() => requests().includes('POST /moonshot/v1/files'));
    leaving.abort();
    await sent;
    // The gateway looks for a file the provider may have kept, on a signal of its own.
    await until(() => requests().includes('GET /moonshot/v1/files'));
    expect(requests()).toEqual(['POST /moonshot/v1/files', 'GET /moonshot/v1/files']);
    expect(t.upstreamRequests('moonshot')[0].aborted).toBe(true);
    expect(await leftBehind()).toEqual(nothing);
  });

  it("Kimi's token count failing does not fail the upload: the gateway estimates instead", async () => {
    t.sandbox.faults.push({ upstream: 'moonshot', times: 1, status: 500, match: '/tokenizers' });
    const { body } = await upload(
      t.gateway.url,
      { name: 'a.txt', data: 'counted here instead' },
      { provider: 'moonshot' },
    );
    expect(body.data.uploadChatDocument).toMatchObject({ status: 'READY', tokens: expect.any(Number) });
    expect(await kimiFiles()).toHaveLength(1);
    await t.query('mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: body.data.uploadChatDocument.id });
  });
});

describe('ownership', () => {
  it("a document is its uploader's: another caller can neither list, use nor delete it", async () => {
    const keys = { a: 'key-a-0123456789abcdef', b: 'key-b-0123456789abcdef' };
    const keyed = await startTestGateway({ GATEWAY_API_KEYS: `${keys.a},${keys.b}` });
    try {
      const doc = (
        await upload(
          keyed.gateway.url,
          { name: 'secret.txt', data: 'mine alone' },
          { provider: 'moonshot', headers: { 'x-api-key': keys.a } },
        )
      ).body.data.uploadChatDocument;
      keyed.clearUpstreamRequests();
      const asB = { 'x-api-key': keys.b };
      expect((await keyed.query(LIST, {}, asB)).body.data.chatDocuments).toEqual([]);
      const use = await keyed.query(
        'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }',
        {
          input: {
            provider: 'moonshot',
            model: 'kimi-k2.6',
            messages: [{ role: 'USER', content: 'Read it.' }],
            documents: [doc.id],
          },
        },
        asB,
      );
      expect(use.body.errors![0]).toMatchObject({
        message: `input.documents[0] names no document "${doc.id}" among yours; chatDocuments lists them.`,
        extensions: { code: 'NOT_FOUND' },
      });
      const del = await keyed.query('mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: doc.id }, asB);
      expect(del.body.errors![0].extensions!.code).toBe('NOT_FOUND');
      expect(keyed.upstreamRequests()).toEqual([]);
      expect((await keyed.query(LIST, {}, { 'x-api-key': keys.a })).body.data.chatDocuments).toEqual([
        { id: doc.id, fileName: 'secret.txt' },
      ]);
    } finally {
      await keyed.close();
    }
  });
});

describe('ownership behind a federation router', () => {
  it('each end client the router names (ROUTER_CLIENT_HEADER) has documents of its own', async () => {
    const router = 'router-key-0123456789';
    const behind = await startTestGateway({ TRUSTED_ROUTER_KEYS: router, ROUTER_CLIENT_HEADER: 'x-client-id' });
    try {
      const as = (client: string) => ({ 'x-api-key': router, 'x-client-id': client });
      const doc = (
        await upload(
          behind.gateway.url,
          { name: 'alice.txt', data: "alice's notes" },
          { provider: 'deepseek', headers: as('alice') },
        )
      ).body.data.uploadChatDocument;
      expect((await behind.query(LIST, {}, as('bob'))).body.data.chatDocuments).toEqual([]);
      expect((await behind.query(LIST, {}, as('alice'))).body.data.chatDocuments).toEqual([
        { id: doc.id, fileName: 'alice.txt' },
      ]);
      // The router itself, naming no client, is another caller again.
      expect((await behind.query(LIST, {}, { 'x-api-key': router })).body.data.chatDocuments).toEqual([]);
    } finally {
      await behind.close();
    }
  });
});

/** Waits (at most 10 s) until `done()`. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !(await done())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Sends `head` and `body` on a fresh socket (the bytes past `first` once the answer came) and resolves with the first response's text. */
function rawExchange(head: string, body: Buffer, first = body.length): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(t.gateway.url).port) });
    const chunks: Buffer[] = [];
    socket.on('error', () => undefined);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (end !== -1 && length && Buffer.byteLength(text) >= end + 4 + Number(length)) {
        socket.end(body.subarray(first));
        resolve(text);
      }
    });
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(Buffer.concat([Buffer.from(head), body.subarray(0, first)]));
  });
}
