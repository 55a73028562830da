import { describe, expect, it } from 'vitest';
import { GraphStore } from '../../../src/sandbox/graph/store.js';

// The seed is built once per process and shared by every store (src/sandbox/graph/store.ts): a write to one
// sandbox must not show in another, nor survive a reset.
describe('GraphStore over the shared seed', () => {
  it('keeps each store its own: a write in one is not seen by another store or after a reset', () => {
    const a = new GraphStore();
    const b = new GraphStore();
    const id = a.issues[0].id;
    const before = b.issue(id)!.value;
    a.write(a.issue(id)!, { ...a.issue(id)!.value, title: 'changed in a' });
    expect(a.issue(id)!.value.title).toBe('changed in a');
    expect(b.issue(id)!.value).toBe(before);
    expect(new GraphStore().issue(id)!.value.title).not.toBe('changed in a');
    a.reset();
    expect(a.issue(id)!.value).toEqual(before);
  });

  it('refuses a write in place into the seed (it is frozen), so no store can leak into the next', () => {
    const row = new GraphStore().issues[0];
    expect(() => {
      (row.value as { title: string }).title = 'in place';
    }).toThrow(TypeError);
  });
});
