import { createHook } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadConfig } from '../../config/env.js';
import { startGateway } from '../../app/gateway.js';

/**
 * The gateway as `npm start` runs it, plus V8's sampling heap profiler driven by signals, for `npm run bench:alloc`:
 * SIGUSR2 starts sampling every allocation (objects already collected included, so garbage counts as well as what
 * lives on; with ALLOC_PROMOTED=1 only what survived the young generation), SIGTERM writes the profile to ALLOC_PROFILE_OUT and exits. Prints a line when each has happened.
 * With ALLOC_ASYNC_OUT set, the same window also counts the async resources made, by type (promises, TickObjects,
 * timers, Immediates: an `async_hooks` init hook), into that file. The hook itself makes V8 create promises an `await`
 * of a native promise otherwise skips, so the counts run high; two builds' difference is what they tell.
 */
const gateway = await startGateway({ config: loadConfig(process.env) });
const session = new Session();
session.connect();
const asyncOut = process.env.ALLOC_ASYNC_OUT;
const made: Record<string, number> = Object.create(null) as Record<string, number>;
const counting = createHook({
  init(_id, type) {
    made[type] = (made[type] ?? 0) + 1;
  },
});
process.on('SIGUSR2', () => {
  if (asyncOut) counting.enable();
  void (async () => {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: Number(process.env.ALLOC_SAMPLING_INTERVAL ?? 512),
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: process.env.ALLOC_PROMOTED !== '1',
    });
    console.log('allocation sampling started');
  })();
});
process.on('SIGTERM', () => {
  counting.disable();
  if (asyncOut) writeFileSync(asyncOut, JSON.stringify(made));
  void (async () => {
    // `--promoted`: the young generation's garbage of the last moments is collected first, so that what is left is
    // what reached the old generation (or still lives), not what no scavenge had looked at yet.
    if (process.env.ALLOC_PROMOTED === '1') for (let i = 0; i < 2; i++) globalThis.gc?.({ type: 'minor' });
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync(process.env.ALLOC_PROFILE_OUT ?? 'allocations.heapprofile', JSON.stringify(profile));
    console.log('allocation profile written');
    await gateway.close();
    process.exit(0);
  })();
});
