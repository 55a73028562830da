import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadConfig } from '../../config/env.js';
import { startGateway } from '../../app/gateway.js';

/**
 * The gateway as `npm start` runs it, plus V8's sampling heap profiler driven by signals, for `npm run bench:alloc`:
 * SIGUSR2 starts sampling every allocation (objects already collected included, so garbage counts as well as what
 * lives on; with ALLOC_PROMOTED=1 only what survived the young generation), SIGTERM writes the profile to ALLOC_PROFILE_OUT and exits. Prints a line when each has happened.
 */
const gateway = await startGateway({ config: loadConfig(process.env) });
const session = new Session();
session.connect();
process.on('SIGUSR2', () => {
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
