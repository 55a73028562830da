import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/observability/metrics.js';
import { CapRefusals, type Cap } from '../../src/pipeline/capRefusals.js';

const WS: Cap = {
  limit: 'GATEWAY_WS_MAX_OPERATIONS',
  max: 50,
  what: 'concurrent operations',
  holder: 'one connection',
};
const CHAT: Cap = { limit: 'CLIENT_MAX_CHAT_STREAMS', max: 32, what: 'concurrent chat streams', holder: 'one client' };

function setUp() {
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const metrics = new GatewayMetrics();
  const refusals = new CapRefusals({
    metrics,
    log: {
      warn: (fields: object, msg: string) => lines.push({ fields: fields as Record<string, unknown>, msg }),
    } as never,
  });
  const counted = async (limit: string) =>
    (await metrics.fairShareRefusals.get()).values.find((v) => v.labels.limit === limit)?.value ?? 0;
  return { lines, refusals, counted };
}

describe('CapRefusals', () => {
  it('makes RATE_LIMITED naming the cap, its value and what lifts it', () => {
    const error = setUp().refusals.refuse(WS);
    expect(error.extensions).toEqual({
      code: 'RATE_LIMITED',
      limit: 'GATEWAY_WS_MAX_OPERATIONS',
      max: 50,
      fix: 'Open another connection or raise GATEWAY_WS_MAX_OPERATIONS; a federation router presents a key of TRUSTED_ROUTER_KEYS (its connection is not bound by this cap).',
    });
    expect(error.message).toBe(
      `Too many concurrent operations: GATEWAY_WS_MAX_OPERATIONS allows 50 for one connection. ${String(error.extensions.fix)}`,
    );
  });

  it('counts every refusal by its cap, and logs each cap once a minute with the refusals left out since', async () => {
    const { lines, refusals, counted } = setUp();
    const t0 = 1_000_000;
    for (let i = 0; i < 1000; i++) refusals.refuse(WS, t0 + i);
    refusals.refuse(CHAT, t0 + 5);
    expect(await counted('GATEWAY_WS_MAX_OPERATIONS')).toBe(1000);
    expect(await counted('CLIENT_MAX_CHAT_STREAMS')).toBe(1);
    expect(lines.map((l) => [l.fields.limit, l.fields.suppressed])).toEqual([
      ['GATEWAY_WS_MAX_OPERATIONS', undefined],
      ['CLIENT_MAX_CHAT_STREAMS', undefined],
    ]);
    expect(lines[0].msg).toMatch(
      /^refused with RATE_LIMITED: Too many concurrent operations: GATEWAY_WS_MAX_OPERATIONS allows 50/,
    );
    refusals.refuse(WS, t0 + 60_000);
    expect(lines.at(-1)!.fields).toEqual({ limit: 'GATEWAY_WS_MAX_OPERATIONS', max: 50, suppressed: 999 });
  });
});
