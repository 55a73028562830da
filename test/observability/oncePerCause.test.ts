import { describe, expect, it } from 'vitest';
import { OncePerCause } from '../../src/observability/oncePerCause.js';

describe('OncePerCause', () => {
  it('lets a cause through once per window, then says how many repeats it left out', () => {
    const once = new OncePerCause({ windowMs: 1000 });
    expect(once.take('a', 0)).toBe(0);
    for (let t = 1; t <= 500; t++) expect(once.take('a', t)).toBeUndefined();
    expect(once.take('b', 600)).toBe(0);
    expect(once.take('a', 1000)).toBe(500);
    expect(once.take('a', 1001)).toBeUndefined();
    expect(once.take('a', 2000)).toBe(1);
  });

  it('lets at most maxPerWindow lines through a window whatever the causes, counting the ones it held back', () => {
    const once = new OncePerCause({ windowMs: 1000, maxPerWindow: 3 });
    const through = Array.from({ length: 100 }, (_, i) => once.take(`client-${i}`, 10)).filter((n) => n !== undefined);
    expect(through).toHaveLength(3);
    expect(once.take('client-50', 20)).toBeUndefined();
    // The next window: a cause held back is told with its repeats.
    expect(once.take('client-50', 1010)).toBe(2);
  });

  it('remembers at most maxCauses, the oldest forgotten first', () => {
    const once = new OncePerCause({ windowMs: 1000, maxPerWindow: 1_000_000, maxCauses: 10 });
    for (let i = 0; i < 1000; i++) once.take(`k${i}`, 0);
    expect(once.take('k0', 1)).toBe(0);
    expect(once.take('k999', 1)).toBeUndefined();
  });
});
