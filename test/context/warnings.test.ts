import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context/request.js';
import type { GatewayServices } from '../../src/context/services.js';
import { takeWarnings, warnCaller } from '../../src/context/warnings.js';
import { WarningCode } from '../../src/errors/codes.js';
import { useAnswerWarnings } from '../../src/pipeline/rules/answerWarnings.js';
import type { Operation } from '../../src/pipeline/operation.js';

/** `extensions.warnings` (context/warnings.ts, pipeline/rules/answerWarnings.ts): each warning on one answer only. */
const context = () => createContext({} as GatewayServices, { requestId: 'r1', signal: new AbortController().signal });
const warning = {
  code: WarningCode.ModelRetiring,
  message: 'moonshot model kimi-k2.6 is deprecated since 2026-10-31 and retires on 2026-12-31.',
};

describe('answer warnings', () => {
  it('go on the next answer that leaves, once; the same warning twice is one', () => {
    const ctx = context();
    const op = { context: ctx } as unknown as Operation;
    expect(useAnswerWarnings().answered!(op, {})).toBeUndefined();
    warnCaller(ctx, warning);
    warnCaller(ctx, { ...warning });
    expect(useAnswerWarnings().answered!(op, {})).toEqual({ warnings: [warning] });
    // The next event of the stream carries none, until another is added.
    expect(useAnswerWarnings().answered!(op, {})).toBeUndefined();
    warnCaller(ctx, { ...warning, message: 'another' });
    expect(takeWarnings(ctx)).toEqual([{ ...warning, message: 'another' }]);
  });

  it('belong to their operation only', () => {
    const a = context();
    const b = context();
    warnCaller(a, warning);
    expect(takeWarnings(b)).toBeUndefined();
    expect(takeWarnings(a)).toEqual([warning]);
  });
});
