import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { makePdf, reportPages } from '../../support/documents.js';

// Kimi's files API as the moonshot emulator serves it (docs/upstreams.md §3.7): what a client of Kimi sees.

let sandbox: Sandbox;
let base: string;
const auth = { authorization: 'Bearer sandbox' };

beforeAll(async () => {
  sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
  base = sandbox.baseUrls.moonshot;
});
afterAll(() => sandbox?.close());
beforeEach(async () => {
  await fetch(`${sandbox.origin}/_sandbox/reset`, { method: 'POST' });
});

async function send(
  name: string,
  data: Buffer | string,
  fields: Record<string, string> = { purpose: 'file-extract' },
  headers: Record<string, string> = auth,
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([data as BlobPart]), name);
  const res = await fetch(`${base}/files`, { method: 'POST', body: form, headers });
  return { status: res.status, body: (await res.json()) as any };
}

describe("Kimi's files API (moonshot emulator)", () => {
  it('takes a file with purpose file-extract and answers the documented file object', async () => {
    const { status, body } = await send('notes.md', '# Notes\n\nThe launch is on Tuesday.\n');
    expect(status).toBe(200);
    expect(body).toEqual({
      id: expect.stringMatching(/^c[a-z0-9]{19}$/),
      object: 'file',
      bytes: 35,
      created_at: expect.any(Number),
      filename: 'notes.md',
      purpose: 'file-extract',
      status: 'ok',
      status_details: '',
    });
    expect(Math.abs(body.created_at - Date.now() / 1000)).toBeLessThan(5);
    // The record shows what was sent, never the file itself.
    expect(sandbox.record.list().at(-1)!.body).toBe(
      'multipart/form-data: purpose=file-extract, file=notes.md (35 bytes)',
    );
  });

  it('extracts the text of a PDF and of text files, served as text/plain by GET /files/{id}/content', async () => {
    const pdf = (await send('report.pdf', makePdf(reportPages(2)))).body;
    const text = (await send('notes.txt', 'plain words')).body;
    const content = await fetch(`${base}/files/${pdf.id}/content`, { headers: auth });
    expect(content.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const extracted = await content.text();
    expect(extracted).toContain('Page 1, line 1: revenue in region 0 grew by 0 percent over the quarter.');
    expect(extracted).toContain('Page 2, line 45:');
    expect(await (await fetch(`${base}/files/${text.id}/content`, { headers: auth })).text()).toBe('plain words');
  });

  it('lists, describes and deletes files; an unknown id is a 404 resource_not_found_error', async () => {
    const a = (await send('a.txt', 'a')).body;
    const b = (await send('b.txt', 'bb')).body;
    const list = await (await fetch(`${base}/files`, { headers: auth })).json();
    expect(list).toEqual({ object: 'list', data: [a, b] });
    expect(await (await fetch(`${base}/files/${b.id}`, { headers: auth })).json()).toEqual(b);
    const deleted = await fetch(`${base}/files/${a.id}`, { method: 'DELETE', headers: auth });
    expect(await deleted.json()).toEqual({ id: a.id, object: 'file', deleted: true });
    const gone = await fetch(`${base}/files/${a.id}/content`, { headers: auth });
    expect(gone.status).toBe(404);
    expect((await gone.json()).error.type).toBe('resource_not_found_error');
    expect((await fetch(`${base}/files/${a.id}`, { method: 'DELETE', headers: auth })).status).toBe(404);
    expect((await (await fetch(`${base}/files`, { headers: auth })).json()).data).toEqual([b]);
  });

  it("refuses Kimi's documented 400s: a purpose other than file-extract, an empty file, a file over the size limit", async () => {
    expect(await send('a.txt', 'x', { purpose: 'assistants' })).toEqual({
      status: 400,
      body: { error: { type: 'invalid_request_error', message: "Invalid purpose: only 'file-extract' accepted" } },
    });
    expect(await send('a.txt', '')).toEqual({
      status: 400,
      body: {
        error: { type: 'invalid_request_error', message: 'File size is zero, please confirm and re-upload the file' },
      },
    });
    await fetch(`${sandbox.origin}/_sandbox/config`, {
      method: 'POST',
      body: JSON.stringify({ fileLimits: { maxFileBytes: 1024 * 1024 } }),
    });
    expect(await send('big.txt', 'x'.repeat(1024 * 1024 + 1))).toEqual({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          message: 'File size is too large, max file size is 1MB, please confirm and re-upload the file',
        },
      },
    });
    expect((await (await fetch(`${base}/files`, { headers: auth })).json()).data).toEqual([]);
  });

  it('refuses the file past the account limit with the documented message, and takes one again after a delete', async () => {
    await fetch(`${sandbox.origin}/_sandbox/config`, {
      method: 'POST',
      body: JSON.stringify({ fileLimits: { maxFiles: 2 } }),
    });
    const first = (await send('1.txt', 'one')).body;
    await send('2.txt', 'two');
    expect(await send('3.txt', 'three')).toEqual({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          message:
            'The number of files you have uploaded exceeded the max file count 2, please delete previous uploaded files',
        },
      },
    });
    await fetch(`${base}/files/${first.id}`, { method: 'DELETE', headers: auth });
    expect((await send('3.txt', 'three')).status).toBe(200);
  });

  it('keeps a PDF that does not parse with status "error", and will not give its content', async () => {
    const broken = Buffer.from(
      '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\nthis is not a page tree\nstartxref\n9\n%%EOF\n',
      'latin1',
    );
    const { body } = await send('broken.pdf', broken);
    expect(body).toMatchObject({ status: 'error', status_details: expect.stringContaining('failed to parse the PDF') });
    const content = await fetch(`${base}/files/${body.id}/content`, { headers: auth });
    expect(content.status).toBe(400);
  });

  it('needs the API key on every files route', async () => {
    expect((await send('a.txt', 'a', { purpose: 'file-extract' }, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await fetch(`${base}/files`)).status).toBe(401);
  });

  it('counts tokens as its completions count a prompt: POST /tokenizers/estimate-token-count answers data.total_tokens', async () => {
    const messages = [
      { role: 'system', content: 'You are Kimi.' },
      { role: 'user', content: 'Hello, my name is Li Lei. What is 1+1?' },
    ];
    const res = await fetch(`${base}/tokenizers/estimate-token-count`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'kimi-k2.6', messages }),
    });
    const counted = (await res.json()).data.total_tokens;
    const chat = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'kimi-k2.6', messages, thinking: { type: 'disabled' } }),
    });
    expect(counted).toBe((await chat.json()).usage.prompt_tokens);
    const unknown = await fetch(`${base}/tokenizers/estimate-token-count`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'kimi-nope', messages }),
    });
    expect(unknown.status).toBe(404);
  });

  it('keeps the file of an upload whose connection breaks before the answer (a cutAfterChunks fault)', async () => {
    sandbox.faults.push({ upstream: 'moonshot', times: 1, cutAfterChunks: 0, match: '/files' });
    await expect(send('lost.txt', 'lost answer')).rejects.toThrow();
    const list = await (await fetch(`${base}/files`, { headers: auth })).json();
    expect(list.data).toEqual([expect.objectContaining({ filename: 'lost.txt', bytes: 11 })]);
  });
});
