import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicas, type ReplicaCluster } from '../../../support/replicas.js';
import { COMPLETION, WEATHER_TOOL, user } from '../../../support/chat.js';

/**
 * A fact one replica learns from a provider's refusal (models/learned.ts) holds for the others: they share it through
 * Redis, so the mistake is made once per cluster, not once per replica.
 */
let cluster: ReplicaCluster;

beforeAll(async () => {
  // The operator's stale fact: kimi-k3.1-pro can be switched off (it always reasons; Kimi refuses the switch).
  cluster = await startReplicas({ count: 2, env: { MOONSHOT_MODELS: 'kimi-k3.1-pro:reasoning=on' } });
}, 120_000);
afterAll(() => cluster?.close(), 60_000);

const completions = () => cluster.upstreamRequests('moonshot').filter((r) => r.url.endsWith('/chat/completions'));
const agent = {
  provider: 'moonshot',
  model: 'kimi-k3.1-pro',
  tools: [WEATHER_TOOL],
  toolChoice: { name: 'get_weather' },
  messages: [user('Weather in Oslo?')],
};

describe('learned facts across replicas sharing Redis', () => {
  it('two requests on the replica that learns, none on the other', async () => {
    const first = await cluster.query(0, COMPLETION, { input: agent });
    expect(first.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', model: 'kimi-k3.1-pro' });
    expect(completions()).toHaveLength(2);

    const second = await cluster.query(1, COMPLETION, { input: agent });
    expect(second.body.errors![0].message).toContain('kimi-k3.1-pro always reasons; use toolChoice AUTO');
    expect(completions()).toHaveLength(2);

    const { body } = await cluster.query(
      1,
      '{ chatProviders { id modelDetails { id reasoning factSources { reasoning } } } }',
    );
    const model = body.data.chatProviders
      .find((p: { id: string }) => p.id === 'moonshot')
      .modelDetails.find((m: { id: string }) => m.id === 'kimi-k3.1-pro');
    expect(model).toEqual({ id: 'kimi-k3.1-pro', reasoning: 'ALWAYS', factSources: { reasoning: 'LEARNED' } });
  });
});
