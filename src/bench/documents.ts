/**
 * `npm run bench:documents`: what chat documents cost, on a gateway process (as `npm start` runs it) against the
 * sandbox in a process of its own, every provider "live" on it, so the gateway's RSS is the gateway's alone.
 *
 * - a 50 MB PDF uploaded to Kimi's files API and one the gateway reads itself: wall time, and the gateway's RSS before,
 *   at its peak during the upload (sampled every 10 ms from /proc) and after;
 * - a ten-turn conversation over one 300-page document: the provider requests (uploads, content reads, token counts,
 *   completions) and the prompt tokens sent, of them how many the provider served from its prefix cache.
 */
import { readFileSync } from 'node:fs';
import { startGatewayProc, startSandboxProc, type RecordedRequest } from './lib/stack.js';

const MB = 1024 * 1024;

/** A PDF of text pages, with one unreferenced binary stream of `padding` bytes (a scanned annex, say) to reach a size. */
function pdf(pages: number, padding = 0): Buffer {
  const objects: Buffer[] = [];
  const add = (body: string | Buffer) => objects.push(Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'));
  add('');
  add('');
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids: number[] = [];
  for (let p = 1; p <= pages; p++) {
    const lines = Array.from(
      { length: 45 },
      (_, l) =>
        `(Page ${p}, line ${l + 1}: revenue in region ${(p * 45 + l) % 17} grew by ${(p * 7 + l * 3) % 23} percent over the quarter.) Tj T*`,
    );
    const stream = `BT /F1 11 Tf 14 TL 50 780 Td ${lines.join(' ')} ET`;
    add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`,
    );
    kids.push(objects.length);
  }
  if (padding) {
    const bytes = Buffer.alloc(padding);
    for (let i = 0; i < padding; i += 4) bytes.writeUInt32LE((i * 2654435761) >>> 0, i);
    add(
      Buffer.concat([
        Buffer.from(`<< /Length ${padding} >>\nstream\n`, 'latin1'),
        bytes,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  }
  objects[0] = Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1');
  objects[1] = Buffer.from(
    `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`,
    'latin1',
  );
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let at = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(at);
    const part = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(part);
    at += part.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(
    Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(parts);
}

/** The process's resident set and its peak so far, from /proc (Linux). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function uploadTo(
  url: string,
  name: string,
  data: Buffer,
  provider?: string,
): Promise<{ id: string; tokens: number }> {
  const boundary = '----bench-documents';
  const operations = JSON.stringify({
    query:
      'mutation($file: Upload!, $provider: ID) { uploadChatDocument(file: $file, provider: $provider) { id tokens } }',
    variables: { file: null, provider: provider ?? null },
  });
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.file"]}\r\n--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), data, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'apollo-require-preflight': 'true' },
    body: new Uint8Array(body),
  });
  const json = (await res.json()) as {
    data?: { uploadChatDocument: { id: string; tokens: number } | null };
    errors?: unknown[];
  };
  if (!json.data?.uploadChatDocument) throw new Error(`upload failed: ${JSON.stringify(json.errors)}`);
  return json.data.uploadChatDocument;
}

/** Uploads `data` while sampling the gateway's memory every 10 ms. */
async function measuredUpload(url: string, pid: number, name: string, data: Buffer, provider?: string) {
  const before = memory(pid).rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, memory(pid).rss)), 10);
  const started = performance.now();
  await uploadTo(url, name, data, provider);
  const ms = performance.now() - started;
  clearInterval(timer);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { ms, before, peak, after: memory(pid).rss };
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

async function main(): Promise<void> {
  const sandbox = await startSandboxProc();
  const gateway = await startGatewayProc(sandbox.origin, { CHAT_DOCUMENT_STORE_MAX_BYTES: String(512 * MB) });
  const requests = async () => (await sandbox.control('GET', 'requests')) as RecordedRequest[];
  try {
    await sandbox.control('POST', 'config', { chatTokenDelayMs: 0 });
    // Warm-up: the first upload loads the tokenizer and the PDF reader's code; the figures are of a running gateway.
    await uploadTo(gateway.url, 'warm-up.pdf', pdf(2), 'moonshot');
    await uploadTo(gateway.url, 'warm-up.pdf', pdf(2));

    const big = pdf(20, 50 * MB - 200_000);
    console.log(`\n50 MB upload (${mb(big.length)} PDF: 20 pages of text and a 50 MB binary annex)`);
    for (const provider of ['moonshot', undefined]) {
      const m = await measuredUpload(gateway.url, gateway.proc.pid, 'annex.pdf', big, provider);
      const where = provider
        ? "to Kimi's files API (streamed from the spool file)"
        : 'read by the gateway (PDF.js in a worker)';
      console.log(
        `  ${where}: ${(m.ms / 1000).toFixed(2)} s; gateway RSS ${mb(m.before)} before, ${mb(m.peak)} at peak (+${mb(m.peak - m.before)}), ${mb(m.after)} after`,
      );
    }

    await sandbox.control('DELETE', 'requests');
    const doc = await uploadTo(gateway.url, 'annual-report.pdf', pdf(300), 'moonshot');
    const messages: Array<{ role: string; content: string }> = [];
    let prompt = 0;
    let cached = 0;
    for (let turn = 1; turn <= 10; turn++) {
      messages.push({ role: 'USER', content: `Question ${turn}: what happened in region ${turn}?` });
      const res = await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query:
            'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content usage { promptTokens cachedPromptTokens } } }',
          variables: {
            input: {
              provider: 'moonshot',
              model: 'kimi-k2.6',
              messages,
              documents: [doc.id],
              reasoning: { enabled: false },
            },
          },
        }),
      });
      const { data } = (await res.json()) as {
        data: {
          createChatCompletion: { content: string; usage: { promptTokens: number; cachedPromptTokens: number | null } };
        };
      };
      messages.push({ role: 'ASSISTANT', content: data.createChatCompletion.content });
      prompt += data.createChatCompletion.usage.promptTokens;
      cached += data.createChatCompletion.usage.cachedPromptTokens ?? 0;
    }
    const seen = (await requests()).filter((r) => r.upstream === 'moonshot');
    const count = (test: (r: RecordedRequest) => boolean) => seen.filter(test).length;
    const completions = seen.filter((r) => r.url.endsWith('/chat/completions'));
    console.log(`\nTen turns over one 300-page document (${doc.tokens} tokens by Kimi's count), kimi-k2.6`);
    console.log(
      `  Kimi requests: ${count((r) => r.method === 'POST' && r.url.endsWith('/files'))} upload, ${count((r) => r.url.endsWith('/content'))} content read, ${count((r) => r.url.includes('/tokenizers/'))} token count, ${completions.length} completions`,
    );
    console.log(
      `  prompt tokens sent: ${prompt} in all (${Math.round(prompt / 10)} a turn), ${cached} of them served from Kimi's prefix cache (${Math.round((100 * cached) / prompt)} %)`,
    );
    console.log(
      `  request bytes to Kimi: ${mb(completions.reduce((n, r) => n + Buffer.byteLength(r.body), 0))} for the ten completions`,
    );
  } finally {
    await gateway.proc.stop();
    await sandbox.proc.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
