import type { ServerResponse } from 'node:http';

/** Resolves when the response can take more, or when it closed (then there is no one left to write to). */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
