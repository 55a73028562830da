import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicas, type ReplicaCluster } from '../support/replicas.js';
import { wsClient } from '../support/ws.js';
import { COMPLETION, HEALTH_AND_TITLE, MOVIE_IDS, operate, SharedCounters, track, until, type Outcome, type TrackedStream } from './load.js';

/**
 * Chaos across replicas: three real gateway processes (what `npm start` runs) on one sandbox and one Redis, under
 * mixed load — service health and title lookups, chat completions, chat streams over graphql-ws — while a replica
 * is killed with SIGKILL, or Redis is stopped for 10 s. Everything is counted: operations answered or lost, streams
 * completed or cut, upstream requests in the sandbox record against the shared counters in Redis.
 */

const QUOTA = 20;
const RPM = 9;
/** Slow enough that 200 streams of 70 tokens (about 5.6 s each) are all in flight when the fault hits. */
const TOKEN_DELAY_MS = 80;
const MAX_TOKENS = 70;
/** Prompts the sandbox answers with more than MAX_TOKENS tokens, so every stream is cut at exactly MAX_TOKENS. */
const PROMPTS = [3, 9, 12, 18, 22, 30].map((n) => `Chaos prompt ${n}: tell me about replicas.`);
const POLICY_REFUSALS = new Set(['UPSTREAM_QUOTA_EXHAUSTED', 'UPSTREAM_RATE_LIMITED']);

const streamInput = (prompt: number) => ({ provider: 'glm', model: 'glm-4-flash', messages: [{ role: 'USER', content: PROMPTS[prompt] }], maxTokens: MAX_TOKENS });
const completionInput = (replica: number, phase: string, n: number) => ({
  provider: 'deepseek',
  model: 'deepseek-chat',
  messages: [{ role: 'USER', content: `replica ${replica} ${phase} ${n}` }],
  maxTokens: 4,
});
const wsUrl = (cluster: ReplicaCluster, replica: number) => `${cluster.origins[replica].replace('http', 'ws')}/graphql`;

/** The text each prompt streams: the same request as a mutation (the sandbox's generator is deterministic). */
async function referenceTexts(cluster: ReplicaCluster): Promise<string[]> {
  const answers = await Promise.all(PROMPTS.map((_, p) => operate(cluster, 0, 'reference', COMPLETION, { input: streamInput(p) })));
  return answers.map((a) => {
    expect(a.codes).toEqual([]);
    expect(a.data.createChatCompletion.usage.completionTokens).toBe(MAX_TOKENS);
    return a.data.createChatCompletion.content as string;
  });
}

/** Opens `count` streams spread round-robin over the replicas, five graphql-ws connections per replica. */
function openStreams(cluster: ReplicaCluster, count: number): { streams: TrackedStream[]; clients: Client[][] } {
  const clients = cluster.origins.map((_, r) => Array.from({ length: 5 }, () => wsClient(wsUrl(cluster, r))));
  const streams = Array.from({ length: count }, (_, i) => {
    const replica = i % clients.length;
    const prompt = i % PROMPTS.length;
    return track(clients[replica][Math.floor(i / clients.length) % 5], replica, prompt, streamInput(prompt), MAX_TOKENS * TOKEN_DELAY_MS);
  });
  return { streams, clients };
}

function expectAnsweredWithinPolicy(outcomes: Outcome[]): void {
  const off = outcomes.filter((o) => o.kind !== 'answered' || o.codes.some((c) => !POLICY_REFUSALS.has(c)));
  expect(off, 'operations lost or failed outside the policy').toEqual([]);
}

const sent = (cluster: ReplicaCluster, upstream: 'omdb' | 'deepseek') => cluster.upstreamRequests(upstream);
const titleIdOf = (url: string) => new URL(url, 'http://x').searchParams.get('i');

describe('kill -9 of one replica among three, under mixed load', () => {
  const prefix = `chaos-kill-${randomUUID()}:`;
  const VICTIM = 2;
  /** Lookups and completions per replica loop; the survivors' loops wait at half-way for the kill. */
  const LOOKUPS = 12;
  const COMPLETIONS = 6;
  let cluster: ReplicaCluster;
  let counters: SharedCounters;

  beforeAll(async () => {
    cluster = await startReplicas({
      count: 3,
      env: { OMDB_DAILY_QUOTA: String(QUOTA), DEEPSEEK_RPM: String(RPM), REDIS_KEY_PREFIX: prefix },
      sandbox: { chatTokenDelayMs: TOKEN_DELAY_MS, omdbDailyQuota: QUOTA, chatRpm: { deepseek: RPM } },
    });
    counters = new SharedCounters(cluster.redis.url, prefix);
  }, 120_000);
  afterAll(async () => {
    counters?.close();
    await cluster?.close();
  }, 60_000);

  it('clients of the two others lose nothing, the killed replica’s clients see their sockets close, and the shared quota and RPM are neither exceeded nor double-spent', async () => {
    const references = await referenceTexts(cluster);
    cluster.sandbox.record.clear();

    // 200 streams and the loops of lookups and completions start together; every loop waits at half-way for the kill.
    const { streams, clients } = openStreams(cluster, 200);
    let killed = false;
    let onKill!: () => void;
    const kill = new Promise<void>((r) => (onKill = r));
    const progress = { lookups: [0, 0, 0], completions: [0, 0, 0] };
    const outcomes: Outcome[] = [];
    const loop = async (replica: number, kind: 'lookups' | 'completions', count: number, run: (phase: string, n: number) => Promise<Outcome>) => {
      for (let n = 0; n < count; n++) {
        if (n === count / 2) await kill;
        const outcome = await run(killed ? 'after' : 'before', n);
        outcomes.push(outcome);
        progress[kind][replica]++;
        // The killed replica's client notices the refused connection and stops.
        if (outcome.kind !== 'answered') break;
      }
    };
    const load = Promise.all(
      [0, 1, 2].flatMap((r) => [
        loop(r, 'lookups', LOOKUPS, (phase, n) => operate(cluster, r, phase, HEALTH_AND_TITLE, { id: MOVIE_IDS[r * LOOKUPS + n] })),
        loop(r, 'completions', COMPLETIONS, (phase, n) => operate(cluster, r, phase, COMPLETION, { input: completionInput(r, phase, n) })),
      ]),
    );
    await Promise.all(streams.map((s) => s.started));
    await until(() => [0, 1, 2].every((r) => progress.lookups[r] >= LOOKUPS / 2 && progress.completions[r] >= COMPLETIONS / 2), 60_000, 'load half-way');
    expect(streams.filter((s) => s.ended), 'streams that ended before the kill').toEqual([]);

    const victim = cluster.replicas[VICTIM];
    victim.child.kill('SIGKILL');
    await victim.exited;
    killed = true;
    onKill();
    await load;
    await Promise.all(streams.map((s) => s.done));
    await Promise.all(clients.flat().map((c) => c.dispose()));

    // Survivors: every operation answered, with data or a policy refusal; every stream complete, all tokens in order.
    const survivors = outcomes.filter((o) => o.replica !== VICTIM);
    expect(survivors).toHaveLength(2 * (LOOKUPS + COMPLETIONS));
    expect(survivors.filter((o) => o.phase === 'after')).toHaveLength(LOOKUPS + COMPLETIONS);
    expectAnsweredWithinPolicy(survivors);
    const lookups = outcomes.filter((o) => o.kind === 'answered' && o.data && 'admin' in o.data);
    for (const o of lookups) expect(o.data.admin.serviceAnnouncement.healthOverviews.nodes).toHaveLength(3);
    for (const s of streams.filter((s) => s.replica !== VICTIM)) {
      expect({ ended: s.ended, errors: s.errorCodes, text: s.tokens.join('') }).toEqual({ ended: 'complete', errors: undefined, text: references[s.prompt] });
      expect(s.finishReason).toBe('LENGTH');
    }

    // The killed replica: operations before the kill answered like the others; then each of its two clients saw the
    // refused connection at once (no hang), and every one of its streams ended with an abnormal socket close (1006)
    // after a prefix of its tokens, in order.
    const victims = outcomes.filter((o) => o.replica === VICTIM);
    expectAnsweredWithinPolicy(victims.filter((o) => o.phase === 'before'));
    expect(victims.filter((o) => o.phase === 'after').map((o) => o.kind)).toEqual(['transport', 'transport']);
    const victimStreams = streams.filter((s) => s.replica === VICTIM);
    for (const s of victimStreams) {
      expect({ ended: s.ended, closeCode: s.closeCode, finishReason: s.finishReason }).toEqual({ ended: 'error', closeCode: 1006, finishReason: undefined });
      expect(references[s.prompt].startsWith(s.tokens.join(''))).toBe(true);
    }

    // OMDb: the load hit the quota; Redis counted every request sent, each title asked once, never beyond the quota.
    const omdb = sent(cluster, 'omdb');
    const used = await counters.quotaUsed();
    const served = lookups.filter((o) => o.data.title).length;
    const refusedByQuota = outcomes.filter((o) => o.codes.includes('UPSTREAM_QUOTA_EXHAUSTED')).length;
    expect(refusedByQuota).toBeGreaterThan(0);
    expect(new Set(omdb.map((r) => titleIdOf(r.url))).size).toBe(omdb.length);
    expect(omdb.every((r) => r.status === 200)).toBe(true);
    expect(omdb.length).toBe(used);
    expect(served).toBe(used);
    expect(used).toBeLessThanOrEqual(QUOTA);

    // deepseek: the load hit the RPM; the window in Redis holds every request sent, never more than RPM.
    const deepseek = sent(cluster, 'deepseek');
    const slots = await counters.rateSlots();
    const completed = outcomes.filter((o) => o.data?.createChatCompletion).length;
    expect(outcomes.filter((o) => o.codes.includes('UPSTREAM_RATE_LIMITED')).length).toBeGreaterThan(0);
    expect(deepseek.every((r) => r.status === 200)).toBe(true);
    expect(deepseek.length).toBe(slots);
    expect(completed).toBe(slots);
    expect(slots).toBeLessThanOrEqual(RPM);

    console.info(
      `[chaos] kill -9: 1 replica killed with its ${victimStreams.length} streams in flight (all cut, close 1006); ` +
        `${streams.length - victimStreams.length} streams on the survivors complete; operations: ${outcomes.length} ` +
        `(${survivors.length} on survivors, 0 lost; ${victims.filter((o) => o.kind !== 'answered').length} refused connections on the killed one); ` +
        `OMDb: ${omdb.length} sent, ${used}/${QUOTA} counted in Redis, ${served} served, ${refusedByQuota} refused by quota; ` +
        `deepseek: ${deepseek.length} sent, ${slots}/${RPM} slots in Redis, ${completed} completed`,
    );
  }, 120_000);
});
