import { describe, expect, it } from 'vitest';
import { SettleWith, type Settle } from '../../../src/upstreams/http/settle.js';

/** Doubles a number; a negative one is refused, zero waits for a promise. */
class Doubled extends SettleWith<number, number> {
  protected answerOf(n: number): number | Promise<number> {
    if (n < 0) throw new Error(`negative: ${n}`);
    return n === 0 ? Promise.resolve(0) : n * 2;
  }
}

const received = () => {
  const seen: string[] = [];
  const to: Settle<number> = {
    resolve: (n) => seen.push(`ok ${n}`),
    reject: (e) => seen.push(`error ${(e as Error).message}`),
  };
  return { seen, to };
};

describe('SettleWith: one step of an answer handed on without a promise of its own', () => {
  it('hands on its answer at once, a waited one when it comes, and the error of a making that throws', async () => {
    const { seen, to } = received();
    new Doubled(to).resolve(21);
    expect(seen).toEqual(['ok 42']);
    new Doubled(to).resolve(-1);
    expect(seen).toEqual(['ok 42', 'error negative: -1']);
    new Doubled(to).resolve(0);
    expect(seen).toHaveLength(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual(['ok 42', 'error negative: -1', 'ok 0']);
    new Doubled(to).reject(new Error('no answer'));
    expect(seen.at(-1)).toBe('error no answer');
  });
});
