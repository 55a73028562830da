import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/observability/redact.js';

describe('createRedactor', () => {
  const redact = createRedactor(['configured-secret-1']);

  it.each([
    ['a configured secret', 'key configured-secret-1 used', 'key [REDACTED] used'],
    ['a key-like URL parameter', 'GET /omdb/?apikey=abc123&i=tt1', 'GET /omdb/?apikey=[REDACTED]&i=tt1'],
    ['a bearer token', 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x.y', 'Authorization: Bearer [REDACTED]'],
    ['basic credentials', 'authorization: Basic dXNlcjpwYXNzd29yZA==', 'authorization: Basic [REDACTED]'],
    [
      'a URL userinfo password',
      'connect postgres://admin:hunter2@db-7.internal:5432/app failed',
      'connect postgres://admin:[REDACTED]@db-7.internal:5432/app failed',
    ],
    [
      'key= and secret: pairs in a body',
      'password=hunter2x secret: s3cr3tvalue',
      'password=[REDACTED] secret: [REDACTED]',
    ],
    [
      'quoted pairs in JSON',
      '{"api_key":"sk-abcdef123456","client_secret": "xyz-123456"}',
      '{"api_key":"[REDACTED]","client_secret": "[REDACTED]"}',
    ],
    [
      'escaped quotes, as a JSON log line carries a body',
      '{"msg":"{\\"access_token\\":\\"ya29.a0AfH6SM\\"}"}',
      '{"msg":"{\\"access_token\\":\\"[REDACTED]\\"}"}',
    ],
  ])('masks %s', (_what, text, masked) => {
    expect(redact(text)).toBe(masked);
  });

  it.each([
    ['numbers under a token-ish name', '"max_tokens": 4096, "promptTokens": 123456'],
    ['short values', '"sortKey": "name"'],
    ['a URL without a password', 'http://user@host/ and https://example.com/path?x=1'],
    ["the gateway's own refusal", 'Missing or unknown API key: send one of the gateway keys in the x-api-key header.'],
    ['an entity reference', 'send an object with its key, e.g. {"__typename": "Title", "imdbId": "tt0078346"}'],
  ])('leaves %s alone', (_what, text) => {
    expect(redact(text)).toBe(text);
  });
});
