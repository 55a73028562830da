import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicas, type ReplicaCluster } from '../support/replicas.js';
import { wsClient } from '../support/ws.js';
import {
  COMPLETION,
  HEALTH_AND_TITLE,
  MOVIE_IDS,
  operate,
  SharedCounters,
  track,
  until,
  type Outcome,
  type TrackedStream,
} from './load.js';

/**
 * Chaos across replicas: three real gateway processes (what `npm start` runs) on one sandbox and one Redis, under
 * mixed load — service health and title lookups, chat completions, chat streams over graphql-ws — while a replica
 * is killed with SIGKILL, or Redis is stopped for 10 s. Everything is counted: operations answered or lost, streams
 * completed or cut, upstream requests in the sandbox record against the shared counters in Redis.
 */

const QUOTA = 20;
const RPM = 9;
/** Slow enough that 200 streams of 70 tokens (about 10 s each) are all in flight when the fault hits. */
const TOKEN_DELAY_MS = 150;
const MAX_TOKENS = 70;
/** Prompts the sandbox answers with more than MAX_TOKENS tokens (`[[long:N]]`), so every stream is cut at exactly MAX_TOKENS. */
const PROMPTS = [3, 9, 12, 18, 22, 30].map((n) => `Chaos prompt ${n}: tell me about replicas. [[long:200]]`);
const POLICY_REFUSALS = new Set(['UPSTREAM_QUOTA_EXHAUSTED', 'UPSTREAM_RATE_LIMITED']);

const streamInput = (prompt: number) => ({
  provider: 'glm',
  model: 'glm-4-flash',
  messages: [{ role: 'USER', content: PROMPTS[prompt] }],
  maxTokens: MAX_TOKENS,
});
const completionInput = (replica: number, phase: string, n: number) => ({
  provider: 'deepseek',
  model: 'deepseek-flash',
  messages: [{ role: 'USER', content: `replica ${replica} ${phase} ${n}` }],
  maxTokens: 4,
});
const wsUrl = (cluster: ReplicaCluster, replica: number) => `${cluster.origins[replica].replace('http', 'ws')}/graphql`;

/**
 * The text each prompt streams: the same request as a mutation (the sandbox's generator is deterministic), asked at
 * full speed; then the sandbox slows down to TOKEN_DELAY_MS for the load, and its record starts afresh.
 */
async function referenceTexts(cluster: ReplicaCluster): Promise<string[]> {
  cluster.sandbox.settings.chatTokenDelayMs = 0;
  const answers = await Promise.all(
    PROMPTS.map((_, p) => operate(cluster, 0, 'reference', COMPLETION, { input: streamInput(p) })),
  );
  cluster.sandbox.settings.chatTokenDelayMs = TOKEN_DELAY_MS;
  cluster.sandbox.record.clear();
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
    return track(
      clients[replica][Math.floor(i / clients.length) % 5],
      replica,
      prompt,
      streamInput(prompt),
      MAX_TOKENS * TOKEN_DELAY_MS,
    );
  });
  return { streams, clients };
}

function expectAnsweredWithinPolicy(outcomes: Outcome[]): void {
  const off = outcomes.filter((o) => o.kind !== 'answered' || o.codes.some((c) => !POLICY_REFUSALS.has(c)));
  expect(off, 'operations lost or failed outside the policy').toEqual([]);
}

/** What reached the upstream for the load (each replica also reads deepseek's GET /models at start-up: left out). */
const sent = (cluster: ReplicaCluster, upstream: 'omdb' | 'deepseek') =>
  cluster.upstreamRequests(upstream).filter((r) => r.method !== 'GET' || upstream !== 'deepseek');
const titleIdOf = (url: string) => new URL(url, 'http://x').searchParams.get('i');

/** Three replicas with these limits (gateway and sandbox), on a fresh key prefix, for one describe block. */
function useCluster(
  quota: number,
  rpm: number,
  sandboxRpm: number,
): { cluster: ReplicaCluster; counters: SharedCounters } {
  const setup = {} as { cluster: ReplicaCluster; counters: SharedCounters };
  beforeAll(async () => {
    const prefix = `chaos-${randomUUID()}:`;
    setup.cluster = await startReplicas({
      count: 3,
      // Every simulated user is one client here (one loopback address): its streams must fit one client's share.
      env: {
        OMDB_DAILY_QUOTA: String(quota),
        DEEPSEEK_RPM: String(rpm),
        REDIS_KEY_PREFIX: prefix,
        CLIENT_MAX_CHAT_STREAMS: '1000',
      },
      sandbox: { chatTokenDelayMs: TOKEN_DELAY_MS, omdbDailyQuota: quota, chatRpm: { deepseek: sandboxRpm } },
    });
    setup.counters = new SharedCounters(setup.cluster.redis.url, prefix);
  }, 120_000);
  afterAll(async () => {
    setup.counters?.close();
    await setup.cluster?.close();
  }, 60_000);
  return setup;
}

describe('kill -9 of one replica among three, under mixed load', () => {
  const VICTIM = 2;
  /** Lookups and completions per replica loop; the survivors' loops wait at half-way for the kill. */
  const LOOKUPS = 12;
  const COMPLETIONS = 6;

  const setup = useCluster(QUOTA, RPM, RPM);

  it('clients of the two others lose nothing, the killed replica’s clients see their sockets close, and the shared quota and RPM are neither exceeded nor double-spent', async () => {
    const { cluster, counters } = setup;
    const references = await referenceTexts(cluster);

    // 200 streams and the loops of lookups and completions start together; every loop waits at half-way for the kill.
    const { streams, clients } = openStreams(cluster, 200);
    let killed = false;
    let onKill!: () => void;
    const kill = new Promise<void>((r) => (onKill = r));
    const progress = { lookups: [0, 0, 0], completions: [0, 0, 0] };
    const outcomes: Outcome[] = [];
    const loop = async (
      replica: number,
      kind: 'lookups' | 'completions',
      count: number,
      run: (phase: string, n: number) => Promise<Outcome>,
    ) => {
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
        loop(r, 'lookups', LOOKUPS, (phase, n) =>
          operate(cluster, r, phase, HEALTH_AND_TITLE, { id: MOVIE_IDS[r * LOOKUPS + n] }),
        ),
        loop(r, 'completions', COMPLETIONS, (phase, n) =>
          operate(cluster, r, phase, COMPLETION, { input: completionInput(r, phase, n) }),
        ),
      ]),
    );
    await Promise.all(streams.map((s) => s.started));
    await until(
      () => [0, 1, 2].every((r) => progress.lookups[r] >= LOOKUPS / 2 && progress.completions[r] >= COMPLETIONS / 2),
      60_000,
      'load half-way',
    );
    expect(
      streams.filter((s) => s.ended),
      'streams that ended before the kill',
    ).toEqual([]);

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
      expect({ ended: s.ended, errors: s.errorCodes, text: s.tokens.join('') }).toEqual({
        ended: 'complete',
        errors: undefined,
        text: references[s.prompt],
      });
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
      expect({ ended: s.ended, closeCode: s.closeCode, finishReason: s.finishReason }).toEqual({
        ended: 'error',
        closeCode: 1006,
        finishReason: undefined,
      });
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
    // Redis counts claims: what was sent, plus what replicas hold ahead unspent (the killed one's slice among it).
    expect(used).toBeGreaterThanOrEqual(omdb.length);
    expect(served).toBe(omdb.length);
    expect(used).toBeLessThanOrEqual(QUOTA);

    // deepseek: the load hit the RPM; the window in Redis holds every request sent, never more than RPM.
    const deepseek = sent(cluster, 'deepseek');
    const slots = await counters.rateSlots();
    const completed = outcomes.filter((o) => o.data?.createChatCompletion).length;
    expect(outcomes.filter((o) => o.codes.includes('UPSTREAM_RATE_LIMITED')).length).toBeGreaterThan(0);
    expect(deepseek.every((r) => r.status === 200)).toBe(true);
    // The killed replica's one completion in flight may hold a slot it never sent, or a request never answered.
    expect(slots - deepseek.length).toBeGreaterThanOrEqual(0);
    expect(slots - deepseek.length).toBeLessThanOrEqual(1);
    expect(deepseek.length - completed).toBeGreaterThanOrEqual(0);
    expect(deepseek.length - completed).toBeLessThanOrEqual(1);
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

describe('Redis stopped for 10 s under load, then restarted empty', () => {
  const OUTAGE_MS = 10_000;
  const OUTAGE_QUOTA = 30;
  const OUTAGE_RPM = 12;
  /** Per replica: lookups of new titles and completions before, during and after the outage. */
  const PLAN = {
    up: { lookups: 4, completions: 2 },
    down: { lookups: 8, completions: 6 },
    recovered: { lookups: 6, completions: 3 },
  };

  // The sandbox keeps OMDb's real quota check; its own deepseek limit stays out of the way of the gateway's.
  const setup = useCluster(OUTAGE_QUOTA, OUTAGE_RPM, 1_000);

  it('answers every operation, keeps each replica to the quota slice it holds while Redis is down, and restores the shared counts after', async () => {
    const { cluster, counters } = setup;
    const references = await referenceTexts(cluster);
    const outcomes: Outcome[] = [];
    /** Which replica looked up each title id, in which phase. */
    const lookedUp = new Map<string, { replica: number; phase: string }>();
    let next = 0;
    const phase = (name: keyof typeof PLAN, extra: (r: number) => Promise<void> = async () => undefined) =>
      Promise.all(
        [0, 1, 2].flatMap((r) => [
          (async () => {
            for (let n = 0; n < PLAN[name].lookups; n++) {
              const id = MOVIE_IDS[next++];
              lookedUp.set(id, { replica: r, phase: name });
              outcomes.push(await operate(cluster, r, name, HEALTH_AND_TITLE, { id }));
            }
          })(),
          (async () => {
            for (let n = 0; n < PLAN[name].completions; n++)
              outcomes.push(await operate(cluster, r, name, COMPLETION, { input: completionInput(r, name, n) }));
          })(),
          extra(r),
        ]),
      );

    await phase('up');
    const upOmdb = sent(cluster, 'omdb').length;

    // Redis goes away (SIGKILL: no goodbye to its clients) with 30 streams in flight.
    const { streams, clients } = openStreams(cluster, 30);
    await Promise.all(streams.map((s) => s.started));
    const stoppedAt = Date.now();
    await cluster.redis.stop();
    await until(
      async () => (await cluster.readiness()).every((r) => r.sharedState.status === 'down'),
      20_000,
      'replicas see Redis down',
    );
    // While it is down: new lookups and completions on every replica, and cached lookups until Redis is back.
    let restarted = false;
    const cachedDuringOutage = async (r: number) => {
      const cached = [...lookedUp].filter(([, l]) => l.replica === r && l.phase === 'up').map(([id]) => id);
      for (let n = 0; n < 200 && !restarted; n++) {
        outcomes.push(await operate(cluster, r, 'down', HEALTH_AND_TITLE, { id: cached[n % cached.length] }));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const down = phase('down', cachedDuringOutage);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, stoppedAt + OUTAGE_MS - Date.now())));
    await cluster.redis.start();
    restarted = true;
    await down;
    await until(
      async () => (await cluster.readiness()).every((r) => r.sharedState.status === 'ready'),
      30_000,
      'replicas see Redis back',
    );
    await phase('recovered');
    await Promise.all(streams.map((s) => s.done));
    await Promise.all(clients.flat().map((c) => c.dispose()));

    // No hang, nothing lost: every operation answered, with data or a policy refusal; every stream complete.
    expect(outcomes.filter((o) => o.kind !== 'answered')).toEqual([]);
    expectAnsweredWithinPolicy(outcomes);
    for (const o of outcomes.filter((o) => o.data && 'admin' in o.data))
      expect(o.data.admin.serviceAnnouncement.healthOverviews.nodes).toHaveLength(3);
    for (const s of streams)
      expect({ ended: s.ended, text: s.tokens.join(''), finishReason: s.finishReason }).toEqual({
        ended: 'complete',
        text: references[s.prompt],
        finishReason: 'LENGTH',
      });
    const cachedServed = outcomes.filter((o) => o.phase === 'down' && o.data?.title).length;

    // OMDb: while Redis was down each replica spent only the slice it held; in all, never more than the quota.
    const omdb = sent(cluster, 'omdb');
    expect(new Set(omdb.map((r) => titleIdOf(r.url))).size).toBe(omdb.length);
    const sentIn = (r: number, name: string) =>
      omdb.filter(
        (q) => lookedUp.get(titleIdOf(q.url)!)?.replica === r && lookedUp.get(titleIdOf(q.url)!)?.phase === name,
      ).length;
    const downBy = [0, 1, 2].map((r) => sentIn(r, 'down'));
    expect(
      outcomes.filter((o) => o.phase === 'down' && o.codes.includes('UPSTREAM_QUOTA_EXHAUSTED')).length,
    ).toBeGreaterThan(0);
    expect(omdb.length).toBeLessThanOrEqual(OUTAGE_QUOTA);
    expect(omdb.every((r) => r.status === 200)).toBe(true);
    // After: the emptied Redis got the replicas' claims back; it counts every request sent and what is held ahead.
    const claimed = await counters.quotaUsed();
    expect(claimed).toBeGreaterThanOrEqual(omdb.length);
    expect(claimed).toBeLessThanOrEqual(OUTAGE_QUOTA);
    expect(outcomes.filter((o) => o.data?.title && lookedUp.get(o.data.title.imdbId)).length).toBeGreaterThanOrEqual(
      omdb.length,
    );

    // deepseek while Redis was down: a share of 12 / 3 = 4 a minute is too small to lease slots ahead, so a replica
    // holds none and sends nothing; in any 60 s, never more than the RPM. After, the window in Redis holds every request.
    const deepseek = sent(cluster, 'deepseek');
    const promptOf = (body: string) =>
      (JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0].content;
    for (const r of [0, 1, 2])
      expect(deepseek.filter((q) => promptOf(q.body).startsWith(`replica ${r} down`))).toEqual([]);
    const times = deepseek.map((q) => Date.parse(q.at)).sort((x, y) => x - y);
    for (const start of times)
      expect(times.filter((t) => t >= start && t < start + 60_000).length).toBeLessThanOrEqual(OUTAGE_RPM);
    expect(await counters.rateSlots()).toBe(deepseek.length);
    const completed = outcomes.filter((o) => o.data?.createChatCompletion).length;
    expect(completed).toBe(deepseek.length);

    console.info(
      `[chaos] Redis outage: 1 stop of ${OUTAGE_MS / 1000} s + restart (empty); ${outcomes.length} operations, 0 lost, 0 hung ` +
        `(${cachedServed} cached lookups served during the outage); ${streams.length} streams complete; ` +
        `OMDb: ${upOmdb} sent before, ${downBy.join('+')} during (each from its slice), ${omdb.length}/${OUTAGE_QUOTA} in all, ${claimed} claimed in Redis after; ` +
        `deepseek: ${deepseek.length} sent (RPM ${OUTAGE_RPM}; none while down: no leased slots at a share of ${OUTAGE_RPM / 3}) = ${await counters.rateSlots()} slots in Redis after`,
    );
  }, 120_000);
});
