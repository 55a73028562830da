import { describe, expect, it } from 'vitest';
import { groupProfile, ruleProfile, type CpuProfile } from '../../src/bench/profile.js';

const frame = (functionName: string, url = '') => ({ functionName, url });

/**
 * (root) → execute (the entry) → admitFrom (core) → admit (operationInputs) → getVariableValues (graphql)
 *                                               ↘ admit (titles quota)
 *                               → run (core) → query (graphql-jit) → hasOwnProperty (native)
 * and a start-up frame outside any request.
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 9] },
    { id: 2, callFrame: frame('execute', 'file:///app/dist/pipeline/core.js'), children: [3, 6] },
    { id: 3, callFrame: frame('admitFrom', 'file:///app/dist/pipeline/core.js'), children: [4, 8] },
    { id: 4, callFrame: frame('admit', 'file:///app/dist/pipeline/rules/operationInputs.js'), children: [5] },
    { id: 5, callFrame: frame('getVariableValues', 'file:///app/node_modules/graphql/execution/values.js') },
    { id: 6, callFrame: frame('query', 'file:///app/node_modules/graphql-jit/dist/execution.js'), children: [7] },
    { id: 7, callFrame: frame('hasOwnProperty') },
    { id: 8, callFrame: frame('admit', 'file:///app/dist/domains/titles/quota.js') },
    { id: 9, callFrame: frame('buildSchema', 'file:///app/dist/schema/build.js') },
  ],
  // The first sample is start-up (before any request), left out; each later one 1 ms.
  samples: [9, 4, 5, 5, 3, 6, 7, 8, 2],
  timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe('bench:profile', () => {
  it('charges a sample to the outermost pipeline rule on its stack, the core its own frames, the rest the rest', () => {
    const { totalMs, groups } = ruleProfile(profile);
    expect(totalMs).toBe(8);
    expect(Object.fromEntries(groups)).toEqual({
      'pipeline/rules/operationInputs.js': 3,
      'domains/titles/quota.js': 1,
      'pipeline core': 2,
      'the rest': 2,
    });
  });

  it('groups the same window by module, a native frame charged to its caller', () => {
    const { totalMs, groups } = groupProfile(profile);
    expect(totalMs).toBe(8);
    expect(groups.get('graphql-jit (compiled execution)')).toBe(2);
    expect(groups.get('graphql-js execute')).toBe(2);
  });
});
