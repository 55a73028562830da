import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * TEST_CPU=1 (a setup file then, test/vitest.config.ts): each test file's CPU time, appended to
 * test-results/cpu.jsonl, to tell a file that computes from one that waits. `cpuMs` is this worker's own (the
 * in-process gateway, sandbox and client); `childMs` the processes it started and reaped (spawned gateways,
 * Chromium, redis-server, extractors), from /proc/self/stat. The file's imports are not counted.
 */
const childMs = () => {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // cutime and cstime, fields 16 and 17 of stat(5), in clock ticks of 10 ms.
  return (Number(fields[13]) + Number(fields[14])) * 10;
};

let start: { cpu: NodeJS.CpuUsage; children: number; at: number };
beforeAll(() => {
  start = { cpu: process.cpuUsage(), children: childMs(), at: performance.now() };
});
afterAll(() => {
  const cpu = process.cpuUsage(start.cpu);
  const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown');
  mkdirSync('test-results', { recursive: true });
  const line = {
    file,
    wallMs: Math.round(performance.now() - start.at),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    childMs: childMs() - start.children,
  };
  appendFileSync('test-results/cpu.jsonl', `${JSON.stringify(line)}\n`);
});
