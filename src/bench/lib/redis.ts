import { connect } from 'node:net';
import { freePort, spawnProc, type Proc } from './proc.js';

/** Debian's redis-server (`.ci/run` installs it); REDIS_SERVER points elsewhere. */
export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** The arguments of a throwaway Redis: loopback only, no persistence. */
export function redisArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--loglevel',
    'warning',
  ];
}

/** True once a Redis on `port` answers PING (plain RESP over a socket: no client needed for a probe). */
export function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => done(false));
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** A Redis server process for the benchmark, ready to use. */
export async function startRedisProc(dir: string): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const proc = spawnProc('redis', REDIS_SERVER, redisArgs(port, dir), {});
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(port))) {
    if (proc.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`redis-server did not start on ${port}:\n${proc.tail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, url: `redis://127.0.0.1:${port}/0` };
}
