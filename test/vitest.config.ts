import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * `npm run test:quick` (src/build/test-quick.ts, TEST_QUICK=1): the test files of the folders an uncommitted change
 * touches, without the files that measure the whole system (they stay in `npm test` and CI). Each of these takes tens
 * of seconds alone; docs/development.md lists the slowest files and why they are slow.
 */
const WHOLE_SYSTEM = [
  'test/hardening/fuzz.test.ts',
  'test/hardening/soak.test.ts',
  'test/hardening/complexity.test.ts',
  'test/reliability/chaos.test.ts',
  'test/bench/**/*.test.ts',
  'test/**/*.browser.test.ts',
];

/**
 * The files that take longest start first, so that neither worker is left running one of them alone at the end (on a
 * clean clone vitest has no durations yet and would start the largest files first; the benchmark smoke test, a small
 * file, then ran last and alone for over a minute). docs/development.md says why each is slow.
 */
const SLOWEST_FIRST = [
  'test/bench/smoke.test.ts',
  'test/hardening/soak.test.ts',
  'test/reliability/chaos.test.ts',
  'test/hardening/faults.test.ts',
  'test/graphiql/graphiql.browser.test.ts',
  'test/domains/chat/documents/extraction/documentBounds.test.ts',
  'test/federation/supergraph.test.ts',
  'test/examples/web.browser.test.ts',
  'test/transports/ws/backpressure.test.ts',
  'test/domains/enterprise/live/liveReplicas.test.ts',
  'test/hardening/fuzz.test.ts',
  'test/state/sharedState.test.ts',
  'test/domains/chat/documents/documentRedis.test.ts',
  'test/docs/newcomer.browser.test.ts',
  'test/app/operations.test.ts',
  'test/domains/chat/documents/extraction/extractors.test.ts',
  'test/domains/chat/documents/documents.test.ts',
  'test/transports/callback/subscriptions.test.ts',
  'test/hardening/complexity.test.ts',
  'test/federation/routerRefusals.test.ts',
  'test/federation/routerClients.test.ts',
  'test/transports/streamBounds.test.ts',
  'test/hardening/failureDomains.test.ts',
  'test/federation/routers.test.ts',
  'test/federation/httpCallback.test.ts',
  'test/conformance/conformance.test.ts',
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = SLOWEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return at === -1 ? SLOWEST_FIRST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * The files that run each in a process of its own (vitest's `isolate`). Every other file shares its worker's process
 * and module graph with the files before it, so the gateway, Apollo and graphql-js are imported once per worker
 * instead of once per file: that import was ~165 s of the suite's worker time, and a fresh process still costs a file
 * ~2.4 s of CPU on Node 20 (measured: five small gateway files, each in its own process against all in one). These
 * files cannot share: the soak measures this process's heap and the linearity checks its CPU time, which another
 * file's leftover timers would disturb; the benchmark's tests run its coordinator as a child process and import
 * nothing of the gateway, so a fresh worker costs them little. The rest share, each starting and closing what it
 * uses: the fuzz, the fault storms and chaos (their own sandbox, gateways and replicas, counted from their own
 * sandbox's record); the browser tests (Chromium and Vite beside the worker); the two document files that spool
 * uploads to a folder of their own (`TMPDIR` set for their run and restored after: fs-capacitor reads it per upload).
 */
const OWN_PROCESS = [
  // Measures the heap a subscription keeps: another file's garbage in the same process would count.
  'test/domains/enterprise/live/feed.test.ts',
  'test/hardening/soak.test.ts',
  'test/hardening/complexity.test.ts',
  'test/bench/**/*.test.ts',
];

const exclude = process.env.TEST_QUICK ? [...configDefaults.exclude, ...WHOLE_SYSTEM] : configDefaults.exclude;

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node loads index.js for libraries, Vite would pick index.mjs for our code,
    // and two copies of graphql break instanceof checks ("from another module or realm"). Use Node's copy.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    passWithNoTests: Boolean(process.env.TEST_QUICK),
    // Builds dist/ when it is stale, for the child processes that run it (test/support/globalSetup.ts says why).
    globalSetup: ['test/support/globalSetup.ts'],
    // TEST_CPU=1: each file's CPU time, its own and its child processes', in test-results/cpu.jsonl.
    setupFiles: ['test/support/processCleanup.ts', ...(process.env.TEST_CPU ? ['test/support/fileCpu.ts'] : [])],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores, four workers: most files spend part of their time waiting on sockets, child processes and timers, so
    // more workers than cores fill those waits (quiet Node 20: 424 s with two, 327 s with three). With three, the
    // files' quiet wall times summed (~690 s) kept each worker busy ~230 s, above what the CPU needs of two cores
    // (~222 s), so the waits set the time; a fourth costs one more import of the gateway (+3–5 s of CPU, measured on
    // 16 small files) and leaves the CPU as the bound. Once a start cost half its CPU (the bundle, one schema per
    // configuration: 431 → 390 s of CPU), the waits set the time again: quiet Node 20, four workers 251 s (`.ci/run`),
    // five 229 s. No test asserts a time.
    maxWorkers: 5,
    sequence: { sequencer: SlowestFirst },
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...exclude, ...OWN_PROCESS], isolate: false },
      },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, exclude, isolate: true } },
    ],
  },
});
