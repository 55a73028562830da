import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PersistedOperations, usePersistedOperations } from '../../../src/pipeline/rules/persistedOperations.js';

const BODY = '{ upstreams { id } }';
const HASH = createHash('sha256').update(BODY).digest('hex');
const rule = usePersistedOperations({
  manifest: new PersistedOperations({ operations: [{ id: 'upstreams-v1', body: BODY }] }),
});

describe('persistedOperations rule', () => {
  it('turns an APQ hash into its document and drops the id carriers', () => {
    const prepared = rule.prepare!({
      extensions: { persistedQuery: { version: 1, sha256Hash: HASH }, traceparent: 't' },
      variables: { a: 1 },
    });
    expect(prepared).toEqual({ query: BODY, variables: { a: 1 }, extensions: { traceparent: 't' } });
  });

  it('accepts a documentId, the manifest id, and the JSON text GET carries', () => {
    expect(rule.prepare!({ documentId: 'upstreams-v1' })).toEqual({ query: BODY });
    expect(rule.prepare!({ extensions: JSON.stringify({ persistedQuery: { sha256Hash: HASH } }) as never })).toEqual({
      query: BODY,
    });
  });

  it('refuses an unknown id and an unlisted document with FORBIDDEN, naming the id cut to 80 characters', () => {
    const unknown = rule.prepare!({ documentId: 'x'.repeat(500) });
    expect(unknown).toMatchObject({ extensions: { code: 'FORBIDDEN', reason: 'PERSISTED_QUERY_NOT_FOUND' } });
    expect((unknown as Error).message.length).toBeLessThan(250);
    expect(rule.prepare!({ query: '{ upstreams { mode } }' })).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
  });
});
