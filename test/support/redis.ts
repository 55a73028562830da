import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { portBelowEphemeral } from './ports.js';
import { REDIS_SERVER, redisAnswers, redisArgs } from '../../src/bench/lib/redis.js';

/** A real `redis-server` (Debian's, installed by .ci/run) on a free loopback port, with no persistence. */
export interface TestRedis {
  port: number;
  url: string;
  /** Stops the server (SIGKILL: an outage, not a clean shutdown). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** SIGSTOP: the server hangs with its connections open, as a swapping or frozen host would. */
  pause(): void;
  /** SIGCONT: it answers again, working off what queued meanwhile. */
  resume(): void;
  /** Stops it for good; safe to call twice. */
  close(): Promise<void>;
}

/** Starts a Redis server; call `close()` in `afterAll`. */
export async function startRedis(): Promise<TestRedis> {
  const port = await portBelowEphemeral();
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const proc = spawn(REDIS_SERVER, redisArgs(port, tmpdir()), { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    const output: string[] = [];
    proc.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
    proc.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output.join('')}`))),
    );
    exited.catch(() => undefined);
    // Ready once it accepts connections: poll with a PING over a plain socket.
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (await redisAnswers(port)) return;
      if (Date.now() > deadline)
        throw new Error(`redis-server did not start on port ${port} within 10 s: ${output.join('')}`);
      await Promise.race([new Promise((r) => setTimeout(r, 50)), exited]);
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }

  async function stopForGood(): Promise<void> {
    child?.kill('SIGCONT');
    await stop();
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    start,
    stop,
    close: stopForGood,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
}
