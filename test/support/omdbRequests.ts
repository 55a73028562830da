import type { RecordedRequest } from '../../src/sandbox/record.js';

/** The OMDb requests a sandbox received, as decoded query strings without the key: `i=tt0078346&plot=full`. */
export function omdbQueries(record: readonly RecordedRequest[]): string[] {
  return record
    .filter((r) => r.upstream === 'omdb')
    .map((r) => {
      const params = new URLSearchParams(r.url.split('?')[1] ?? '');
      params.delete('apikey');
      return [...params].map(([k, v]) => `${k}=${v}`).join('&');
    });
}
