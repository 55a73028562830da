import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { makePdf, upload } from '../../support/documents.js';

// The emulated models answer from the documents they are given (issue 48): a person trying documents offline sees the
// answer name the document and quote the passage that answers, whether the gateway extracted the text itself or
// Kimi's files API did.

const COMPLETE = `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) { content }
}`;

const PLAN = [
  '# Release plan',
  'The gateway ships on Tuesday after the load test.',
  'Region 3 grew by 12 percent in the last quarter.',
  'The Berlin office moves to the new building in March.',
  'Support hours stay the same.',
].join('\n');

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t?.close());

const ask = async (provider: string, model: string, documents: string[], question: string) => {
  const { body } = await t.query(COMPLETE, {
    input: {
      provider,
      model,
      messages: [{ role: 'USER', content: question }],
      documents,
      reasoning: { enabled: false },
    },
  });
  expect(body.errors).toBeUndefined();
  return body.data.createChatCompletion.content as string;
};

describe('a sandbox answer over attached documents', () => {
  it('names the document the gateway extracted and quotes the line sharing the most words with the question', async () => {
    const doc = (
      await upload(t.gateway.url, { name: 'plan.md', data: PLAN, type: 'text/markdown' }, { provider: 'deepseek' })
    ).body.data.uploadChatDocument;
    const answer = await ask('deepseek', 'deepseek-flash', [doc.id], 'When does the Berlin office move?');
    expect(answer).toMatch(
      /^You attached plan\.md\. The passage of plan\.md closest to your question: “The Berlin office moves to the new building in March\.”/,
    );
    expect(answer).toMatch(/An emulated deepseek-flash wrote this/);
    // Deterministic: the same question, the same answer.
    expect(await ask('deepseek', 'deepseek-flash', [doc.id], 'When does the Berlin office move?')).toBe(answer);
  });

  it("does the same over a PDF whose text Kimi's files API extracted, and picks the document that answers among several", async () => {
    const report = makePdf([
      ['Quarterly report', 'Revenue in region 7 fell by 3 percent.', 'Hiring paused in the Lisbon team until May.'],
    ]);
    const kimi = (
      await upload(
        t.gateway.url,
        { name: 'report.pdf', data: report, type: 'application/pdf' },
        { provider: 'moonshot' },
      )
    ).body.data.uploadChatDocument;
    expect(kimi).toMatchObject({ provider: 'moonshot', status: 'READY' });
    const answer = await ask('moonshot', 'kimi-k2.6', [kimi.id], 'Is hiring paused in the Lisbon team?');
    expect(answer).toMatch(
      /^You attached report\.pdf\. The passage of report\.pdf closest to your question: “Hiring paused in the Lisbon team until May\.”/,
    );

    const plan = (await upload(t.gateway.url, { name: 'plan.md', data: PLAN }, { provider: 'moonshot' })).body.data
      .uploadChatDocument;
    const both = await ask('moonshot', 'kimi-k2.6', [plan.id, kimi.id], 'By how much did revenue in region 7 fall?');
    expect(both).toMatch(
      /^You attached plan\.md and report\.pdf\. The passage of report\.pdf closest to your question: “Revenue in region 7 fell by 3 percent\.”/,
    );
  });

  it('says so when nothing shares a word with the question, quoting how the document begins', async () => {
    const doc = (await upload(t.gateway.url, { name: 'plan.md', data: PLAN }, { provider: 'glm' })).body.data
      .uploadChatDocument;
    const answer = await ask('glm', 'glm-4-flash', [doc.id], 'Why?');
    expect(answer).toMatch(
      /^You attached plan\.md\. Nothing in it shares a word with your question; plan\.md begins: “# Release plan”/,
    );
  });

  it('at length (a person watching) also quotes the next closest passages', async () => {
    const doc = (await upload(t.gateway.url, { name: 'plan.md', data: PLAN }, { provider: 'deepseek' })).body.data
      .uploadChatDocument;
    await fetch(`${t.sandbox.origin}/_sandbox/config`, {
      method: 'POST',
      body: JSON.stringify({ chatAnswerLength: 'long' }),
    });
    try {
      const answer = await ask(
        'deepseek',
        'deepseek-flash',
        [doc.id],
        'Does the gateway ship on Tuesday, and do support hours stay?',
      );
      expect(answer).toMatch(
        /^You attached plan\.md\. The passage of plan\.md closest to your question: “The gateway ships on Tuesday after the load test\.” Close to it: “Support hours stay the same\.” \(plan\.md\)\./,
      );
    } finally {
      await fetch(`${t.sandbox.origin}/_sandbox/config`, {
        method: 'POST',
        body: JSON.stringify({ chatAnswerLength: 'short' }),
      });
    }
  });
});
