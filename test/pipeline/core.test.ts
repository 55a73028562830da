import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleFailureCause, type OperationPipeline } from '../../src/pipeline/core.js';
import type { PipelineRule } from '../../src/pipeline/operation.js';
import { Shutdown } from '../../src/pipeline/rules/shutdown.js';
import { ErrorCode, GatewayError } from '../../src/errors/codes.js';
import { pipelineHarness, pipelineWithRules, type PipelineHarness } from '../support/pipeline.js';

/** Two throw sites: the cause of a failure is where it was thrown, whatever its message says. */
function failAt(site: 'one' | 'two', message: string): never {
  if (site === 'one') throw new TypeError(message);
  throw new TypeError(message);
}

describe('a pipeline rule that throws', () => {
  let h: PipelineHarness;
  let pipeline: OperationPipeline;
  let site: 'one' | 'two' = 'one';
  let n = 0;
  const broken: PipelineRule = {
    name: 'broken',
    admit: () => failAt(site, `cannot read the argument of request ${n++}`),
  };

  beforeAll(async () => {
    h = await pipelineHarness({ NODE_ENV: 'production' });
    const shutdown = new Shutdown();
    pipeline = pipelineWithRules(h, [broken], shutdown);
  });
  afterAll(() => h.close());

  const failures = () => h.logs.json().filter((l) => l.msg === 'a pipeline rule failed');

  it('refuses its operation alone with INTERNAL_SERVER_ERROR, masked in production, and logs its stack once per cause, not once per request', async () => {
    for (let i = 0; i < 50; i++) {
      const refused = await pipeline.execute(
        { query: '{ upstreams { id } }' },
        { requestId: `r${i}`, transport: 'in-process' },
      );
      expect(refused.kind).toBe('refused');
      const [formatted] = (refused as { errors: unknown[] }).errors;
      expect(formatted).toEqual({
        message: 'Internal server error. Quote the x-request-id response header when reporting it.',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
    }
    expect(failures()).toHaveLength(1);
    expect(failures()[0]).toMatchObject({ level: 'error', rule: 'broken', requestId: 'r0', suppressed: 0 });
    expect(String(failures()[0].err)).toContain('TypeError: cannot read the argument of request 0');
    // Another throw site is another cause: logged once too.
    site = 'two';
    for (let i = 0; i < 5; i++)
      await pipeline.execute({ query: '{ upstreams { id } }' }, { requestId: `s${i}`, transport: 'in-process' });
    expect(failures()).toHaveLength(2);
    expect(failures()[1]).toMatchObject({ rule: 'broken', requestId: 's0' });
  });

  it('names a cause by rule, error name and throw site, not by the message a client may shape', () => {
    const at = (message: string) => {
      try {
        failAt('one', message);
      } catch (error) {
        return error;
      }
    };
    const [a, b] = ['a', 'b'].map((message) => ruleFailureCause('r', at(message)));
    expect(a).toBe(b);
    expect(a).toMatch(/^r\nTypeError\n +at failAt /);
    expect(ruleFailureCause('other', at('a'))).not.toBe(a);
    expect(ruleFailureCause('r', 'thrown string')).toBe('r\nthrown string');
  });
});

describe('the waitTurn stage', () => {
  let h: PipelineHarness;
  afterAll(() => h?.close());

  it('runs once every rule admitted the operation, never for one a later rule refuses, and a refusal there refuses it', async () => {
    h = await pipelineHarness();
    const seen: string[] = [];
    let refuseLater = false;
    let turnRefusal: Error | undefined;
    const waiting: PipelineRule = {
      name: 'waiting',
      admit: () => void seen.push('waiting.admit'),
      waitTurn: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            seen.push('waiting.waitTurn');
            resolve(turnRefusal as never);
          }, 5),
        ),
    };
    const later: PipelineRule = {
      name: 'later',
      admit: async () => {
        seen.push('later.admit');
        return refuseLater ? (new GatewayError(ErrorCode.RateLimited, 'over the cap') as never) : undefined;
      },
    };
    const shutdown = new Shutdown();
    const pipeline = pipelineWithRules(h, [waiting, later], shutdown);
    const run = () => pipeline.execute({ query: '{ upstreams { id } }' }, { requestId: 'w', transport: 'in-process' });

    expect((await run()).kind).toBe('result');
    expect(seen).toEqual(['waiting.admit', 'later.admit', 'waiting.waitTurn']);

    seen.length = 0;
    refuseLater = true;
    const capped = await run();
    expect(capped).toMatchObject({ kind: 'refused', errors: [{ extensions: { code: 'RATE_LIMITED' } }] });
    expect(seen).toEqual(['waiting.admit', 'later.admit']);

    seen.length = 0;
    refuseLater = false;
    turnRefusal = new GatewayError(ErrorCode.UpstreamError, 'gave up waiting');
    expect(await run()).toMatchObject({ kind: 'refused', errors: [{ message: 'gave up waiting' }] });
    expect(seen).toEqual(['waiting.admit', 'later.admit', 'waiting.waitTurn']);
  });
});
