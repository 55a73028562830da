import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { GatewayError, ErrorCode } from '../../src/errors/codes.js';
import { createErrorFormatter } from '../../src/errors/format.js';
import { createLogger } from '../../src/observability/logger.js';
import { OncePerCause } from '../../src/observability/oncePerCause.js';
import { LogCapture } from '../support/gateway.js';

const HTML = '<html>db-7.internal.example token=abc</html>';
const upstreamFailure = () =>
  new GatewayError(ErrorCode.UpstreamError, `The ark service failed with HTTP 502: ${HTML}`, {
    upstream: 'ark',
    status: 502,
    upstreamCode: 'a b c <html>',
    http: { status: 502 },
  });

function formatter(production: boolean, stackTraces = false) {
  const logs = new LogCapture();
  const log = createLogger({ level: 'info', redact: (t) => t, destination: logs as never, format: 'json' });
  return {
    format: createErrorFormatter({
      production,
      stackTraces,
      redact: (t) => t.replace('token=abc', 'token=[redacted]'),
      log,
    }),
    logs,
    log,
  };
}

describe('errorFormat rule', () => {
  it('logs a bug every request hits once a minute per throw site, then with the count of repeats left out', () => {
    const logs = new LogCapture();
    const log = createLogger({ level: 'info', redact: (t) => t, destination: logs as never, format: 'json' });
    let now = 0;
    const limiter = new OncePerCause();
    const format = createErrorFormatter({
      production: false,
      redact: (t) => t,
      log,
      unexpectedLog: { take: (cause) => limiter.take(cause, now) },
    });
    const op = { errorCodes: new Set<string>(), context: { log } };
    const thrower = () => new TypeError('x is undefined');
    const bug = () => new GraphQLError('x is undefined', { path: ['title'], originalError: thrower() });
    // One throw site: the error's name and first three frames (thrower, bug, hit) are its cause.
    const hit = () => format([bug()], op);
    for (let i = 0; i < 100; i++) hit();
    now = 61_000;
    hit();
    const lines = logs.json().filter((l) => l.msg === 'unexpected error: x is undefined');
    expect(lines.map((l) => l.suppressed)).toEqual([undefined, 99]);
  });

  it("keeps stack traces out of answers unless ERROR_STACK_TRACES asks (never in production), and logs an unexpected error's stack with the operation", () => {
    const bug = () =>
      new GraphQLError("Cannot read properties of undefined (reading 'token=abc')", {
        path: ['title'],
        originalError: new TypeError('Cannot read properties of undefined'),
      });
    const withStack = () => ({
      message: 'Not found',
      extensions: { code: 'BAD_USER_INPUT', stacktrace: ['GraphQLError: Not found', '    at resolve (titles.ts:1:1)'] },
    });
    for (const [production, stackTraces, kept] of [
      [false, false, false],
      [false, true, true],
      [true, true, false],
    ] as const) {
      const { format, logs, log } = formatter(production, stackTraces);
      const op = { errorCodes: new Set<string>(), context: { log } };
      const [unexpected, refused] = format([bug(), withStack()], op);
      expect(unexpected.extensions!.code).toBe('INTERNAL_SERVER_ERROR');
      expect('stacktrace' in unexpected.extensions!).toBe(false);
      expect('stacktrace' in refused.extensions!).toBe(kept);
      const logged = logs.json().filter((l) => String(l.msg).startsWith('unexpected error'));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({
        level: 'error',
        path: ['title'],
        err: expect.stringMatching(/^TypeError: Cannot read properties of undefined\n\s+at /),
      });
      expect(JSON.stringify(logged)).not.toContain('token=abc');
    }
  });

  it('in production replaces an upstream text with a message naming the upstream and the status, and logs the text redacted', () => {
    const { format, logs } = formatter(true);
    const [e] = format([upstreamFailure()]);
    expect(e.message).toBe(
      'The ark service failed (HTTP 502). Quote the x-request-id response header when reporting it.',
    );
    expect(e.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: 'ark', status: 502 });
    const line = logs.json().find((l) => l.msg === 'upstream error masked for the client')!;
    expect(line.upstreamMessage).toContain('db-7.internal.example token=[redacted]');
  });

  it("keeps the gateway's own refusals that name an upstream (quota, budget) in production", () => {
    const { format } = formatter(true);
    const quota = new GatewayError(ErrorCode.UpstreamQuotaExhausted, 'The omdb daily quota has 2 requests left.', {
      upstream: 'omdb',
      retryAfter: 60,
    });
    expect(format([quota])[0].message).toBe('The omdb daily quota has 2 requests left.');
  });

  it('keeps the message of an INTERNAL_SERVER_ERROR that asks for a retry (the document store not answering) in production, and masks any other', () => {
    const { format } = formatter(true);
    const retry = new GatewayError(
      ErrorCode.InternalServerError,
      "The gateway's document store does not answer right now, so …; retry in a moment.",
      { reason: 'DOCUMENT_STORE_UNAVAILABLE' },
    );
    expect(format([retry])[0]).toMatchObject({
      message: retry.message,
      extensions: { code: 'INTERNAL_SERVER_ERROR', reason: 'DOCUMENT_STORE_UNAVAILABLE' },
    });
    const other = new GatewayError(ErrorCode.InternalServerError, 'Command timed out', { reason: 'SOMETHING_ELSE' });
    expect(format([other])[0]).toEqual({
      message: 'Internal server error. Quote the x-request-id response header when reporting it.',
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
  });

  it('in development keeps the upstream text and removes only extensions.http', () => {
    const { format } = formatter(false);
    const [e] = format([upstreamFailure()]);
    expect(e.message).toContain('db-7.internal.example');
    expect(e.extensions).not.toHaveProperty('http');
  });

  it('maps codes outside the contract onto it', () => {
    const { format } = formatter(false);
    expect(format([{ message: 'x', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }])[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'GRAPHQL_PARSE_FAILED',
    });
  });

  it("reads an error's kind from its code, never from its wording: a variable that does not coerce is coded where it is coerced", () => {
    const { format } = formatter(true);
    // pipeline/rules/operationInputs.ts coerces every operation's variables and codes a failure BAD_USER_INPUT itself.
    const coerced = {
      message: 'Variable "$file" got invalid value "x"; Upload value invalid.',
      locations: [{ line: 1, column: 10 }],
      extensions: { code: 'BAD_USER_INPUT' },
    };
    expect(format([coerced])[0]).toEqual(coerced);
    // The same words without a code are not taken for a request error: an unexpected failure, masked in production.
    expect(format([{ message: coerced.message }])[0].extensions!.code).toBe('INTERNAL_SERVER_ERROR');
  });
});
