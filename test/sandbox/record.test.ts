import { describe, expect, it } from 'vitest';
import { RequestRecord, type RecordedRequest } from '../../src/sandbox/record.js';

const entry = (i: number): RecordedRequest => ({
  upstream: 'omdb',
  method: 'GET',
  url: `/omdb/?i=${i}`,
  headers: {},
  body: '',
  at: '',
  aborted: false,
  status: 200,
});

describe('request record', () => {
  it('keeps the newest `capacity` requests, oldest first', () => {
    const record = new RequestRecord(10);
    for (let i = 0; i < 37; i++) record.add(entry(i));
    expect(record.list().map((r) => r.url)).toEqual(Array.from({ length: 10 }, (_, k) => `/omdb/?i=${27 + k}`));
  });

  it('stays bounded however many requests arrive', () => {
    const record = new RequestRecord(100);
    for (let i = 0; i < 10_000; i++) record.add(entry(i));
    expect(record.list()).toHaveLength(100);
    expect(record.list()[99].url).toBe('/omdb/?i=9999');
  });
});
