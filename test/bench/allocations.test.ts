import { describe, expect, it } from 'vitest';
import { allocationReport, allocationTable, asyncTable, type HeapProfileNode } from '../../src/bench/allocations.js';

const node = (
  functionName: string,
  selfSize: number,
  children: HeapProfileNode[] = [],
  url = '/work/dist/x.js',
): HeapProfileNode => ({
  callFrame: { functionName, url, lineNumber: 9 },
  selfSize,
  children,
});

describe('npm run bench:alloc report', () => {
  it('sums allocation per operation by function, self and inclusive, counting recursion once', () => {
    // root → a (100) → b (50) → a (30, recursive) ; root → b (20)
    const head = node('(root)', 0, [node('a', 100, [node('b', 50, [node('a', 30)])]), node('b', 20)], '');
    const report = allocationReport(head, 10);
    expect(report.bytesPerOperation).toBe(20);
    expect(report.self).toEqual([
      { frame: 'a dist/x.js:10', bytes: 13 },
      { frame: 'b dist/x.js:10', bytes: 7 },
      { frame: '(root) :10', bytes: 0 },
    ]);
    expect(Object.fromEntries(report.inclusive.map((r) => [r.frame, r.bytes]))).toEqual({
      '(root) :10': 20,
      'a dist/x.js:10': 18,
      'b dist/x.js:10': 10,
    });
    const table = allocationTable(report);
    expect(table).toContain('Allocated per operation: 20 bytes.');
    expect(table).toContain('| a dist/x.js:10 | 13 |');
  });

  it('counts async resources per operation by type, most first, leaving out what is made less than once per 100', () => {
    const table = asyncTable({ PROMISE: 2200, TickObject: 900, Timeout: 200, Immediate: 1 }, 200);
    expect(table.split('\n').slice(2, -1)).toEqual([
      '| PROMISE | 11.00 |',
      '| TickObject | 4.50 |',
      '| Timeout | 1.00 |',
    ]);
  });
});
