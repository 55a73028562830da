import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicas, type ReplicaCluster } from '../../../support/replicas.js';
import { makePdf, reportPages, upload } from '../../../support/documents.js';

/**
 * Chat documents on two gateway processes sharing one Redis: a document uploaded through one replica is listed, used
 * and deleted through the other, and its text, read from Kimi once, comes from the shared cache there.
 */
let cluster: ReplicaCluster;
beforeAll(async () => {
  cluster = await startReplicas({ count: 2 });
}, 120_000);
afterAll(() => cluster?.close(), 60_000);

const LIST = '{ chatDocuments { id fileName tokens status } }';
const files = () =>
  cluster
    .upstreamRequests('moonshot')
    .filter((r) => r.url.includes('/files') || r.url.includes('/tokenizers'))
    .map((r) => `${r.method} ${r.url.replace(/\/files\/c[a-z0-9]{19}/, '/files/{id}')}`);

describe('documents across replicas sharing Redis', () => {
  it('uploads on one replica, reads the text from the shared cache on the other, deletes from either', async () => {
    const uploaded = await upload(
      `${cluster.origins[0]}/graphql`,
      { name: 'report.pdf', data: makePdf(reportPages(20)), type: 'application/pdf' },
      { provider: 'moonshot' },
    );
    const doc = uploaded.body.data.uploadChatDocument;
    expect(files()).toEqual([
      'POST /moonshot/v1/files',
      'GET /moonshot/v1/files/{id}/content',
      'POST /moonshot/v1/tokenizers/estimate-token-count',
    ]);
    expect((await cluster.query(1, LIST)).body.data.chatDocuments).toEqual([
      { id: doc.id, fileName: 'report.pdf', tokens: doc.tokens, status: 'READY' },
    ]);

    const input = {
      provider: 'deepseek',
      model: 'deepseek-flash',
      messages: [{ role: 'USER', content: 'Which region grew most?' }],
      documents: [doc.id],
      reasoning: { enabled: false },
    };
    const answer = await cluster.query(
      1,
      'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { usage { promptTokens } } }',
      { input },
    );
    expect(answer.body.errors).toBeUndefined();
    // No second read at Kimi: replica 1 found the text in Redis.
    expect(files()).toHaveLength(3);
    const sent = cluster.upstreamRequests('deepseek').filter((r) => r.url.endsWith('/chat/completions'));
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body).messages[0].content).toContain('Page 20, line 45:');

    expect(
      (await cluster.query(1, 'mutation($id: ID!) { deleteChatDocument(id: $id) }', { id: doc.id })).body.data
        .deleteChatDocument,
    ).toBe(true);
    expect(files().at(-1)).toBe('DELETE /moonshot/v1/files/{id}');
    expect((await cluster.query(0, LIST)).body.data.chatDocuments).toEqual([]);
  });
});
