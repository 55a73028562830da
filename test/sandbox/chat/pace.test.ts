import { describe, expect, it } from 'vitest';
import { startGateway } from '../../../src/app/gateway.js';
import { ConfigError, loadConfig } from '../../../src/config/env.js';
import { VARIABLES } from '../../../src/config/variables.js';
import { startSandbox } from '../../../src/sandbox/server.js';
import { HUMAN_TOKEN_DELAY_MS } from '../../../src/sandbox/types.js';
import { LogCapture } from '../../support/gateway.js';
import { spawnSandbox } from '../../support/process.js';

// A person watches `npm start` and `npm run sandbox` stream; tests and benchmarks set their own pace (SANDBOX_TOKEN_DELAY_MS).
describe("the sandbox's chat pace", () => {
  it('is a reading pace by default under npm start, said in the start-up log, and SANDBOX_TOKEN_DELAY_MS sets it', async () => {
    expect(HUMAN_TOKEN_DELAY_MS).toBe(40);
    expect(VARIABLES.SANDBOX_TOKEN_DELAY_MS.default).toBe(String(HUMAN_TOKEN_DELAY_MS));
    for (const [env, delayMs] of [
      [{}, HUMAN_TOKEN_DELAY_MS],
      [{ SANDBOX_TOKEN_DELAY_MS: '0' }, 0],
    ] as const) {
      const logs = new LogCapture();
      const gateway = await startGateway({
        config: loadConfig({ PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env }),
        logDestination: logs,
      });
      try {
        expect(gateway.sandbox!.settings.chatTokenDelayMs).toBe(delayMs);
        const config = (await (await fetch(`${gateway.sandbox!.origin}/_sandbox/config`)).json()) as {
          chatTokenDelayMs: number;
        };
        expect(config.chatTokenDelayMs).toBe(delayMs);
        expect(
          logs
            .json()
            .filter((l) => 'chatTokenDelayMs' in l)
            .map((l) => l.msg),
        ).toEqual([
          `sandbox chat answers stream a token every ${delayMs} ms (SANDBOX_TOKEN_DELAY_MS), short answers (SANDBOX_ANSWER_LENGTH)`,
        ]);
      } finally {
        await gateway.close();
      }
    }
  });

  it('says nothing of the pace when every chat provider is live (the sandbox serving only Graph and OMDb)', async () => {
    // "Live" on a sandbox of its own, so that nothing leaves loopback.
    const upstream = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    const live = Object.fromEntries(
      (['glm', 'ark', 'deepseek', 'moonshot'] as const).flatMap((id) => [
        [`${id.toUpperCase()}_BASE_URL`, upstream.baseUrls[id]],
        [`${id.toUpperCase()}_API_KEY`, 'sandbox'],
      ]),
    );
    const logs = new LogCapture();
    const gateway = await startGateway({
      config: loadConfig({ PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...live }),
      logDestination: logs,
    });
    try {
      expect(gateway.sandbox).toBeDefined();
      expect(logs.lines.join('\n')).not.toContain('SANDBOX_TOKEN_DELAY_MS');
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });

  it('refuses a SANDBOX_TOKEN_DELAY_MS that is not a whole number of milliseconds up to 10 s, naming it', () => {
    for (const value of ['fast', '-1', '10001']) {
      try {
        loadConfig({ SANDBOX_TOKEN_DELAY_MS: value });
        expect.unreachable(`${value} was accepted`);
      } catch (error) {
        expect((error as ConfigError).problems.map((p) => p.variable)).toEqual(['SANDBOX_TOKEN_DELAY_MS']);
      }
    }
  });

  it('npm run sandbox paces at a reading pace, or at SANDBOX_TOKEN_DELAY_MS, and refuses a bad value with exit code 1', async () => {
    for (const [env, delayMs] of [
      [{}, HUMAN_TOKEN_DELAY_MS],
      [{ SANDBOX_TOKEN_DELAY_MS: '7' }, 7],
    ] as const) {
      const sandbox = spawnSandbox(env);
      const origin = await sandbox.origin;
      const config = (await (await fetch(`${origin}/_sandbox/config`)).json()) as { chatTokenDelayMs: number };
      expect(config.chatTokenDelayMs).toBe(delayMs);
      expect(sandbox.output[0]).toContain(
        `chat tokens ${delayMs} ms apart: SANDBOX_TOKEN_DELAY_MS; short answers: SANDBOX_ANSWER_LENGTH`,
      );
      sandbox.child.kill('SIGTERM');
      expect(await sandbox.exited).toBe(0);
    }
    const bad = spawnSandbox({ SANDBOX_TOKEN_DELAY_MS: 'slow' });
    expect(await bad.exited).toBe(1);
    expect(bad.output).toEqual(['SANDBOX_TOKEN_DELAY_MS must be a whole number of milliseconds 0..10000, got "slow"']);
  }, 60_000);

  it('the control API refuses a pause that is not a whole number of milliseconds up to 10 s, and keeps the one it had', async () => {
    const sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    try {
      for (const chatTokenDelayMs of [-1, 2.5, '40', 10_001]) {
        const res = await fetch(`${sandbox.origin}/_sandbox/config`, {
          method: 'POST',
          body: JSON.stringify({ chatTokenDelayMs }),
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toBe(
          `chatTokenDelayMs must be a whole number of milliseconds 0..10000, got ${JSON.stringify(chatTokenDelayMs)}`,
        );
      }
      expect(sandbox.settings.chatTokenDelayMs).toBe(0);
    } finally {
      await sandbox.close();
    }
  });

  it('answers at length while a person watches (the log on a terminal), briefly for a pipe, as SANDBOX_ANSWER_LENGTH says when set', async () => {
    const terminal = Object.assign(new LogCapture(), { isTTY: true });
    for (const [destination, env, length] of [
      [terminal, {}, 'long'],
      [new LogCapture(), {}, 'short'],
      [Object.assign(new LogCapture(), { isTTY: true }), { SANDBOX_ANSWER_LENGTH: 'short' }, 'short'],
      [new LogCapture(), { SANDBOX_ANSWER_LENGTH: 'long' }, 'long'],
    ] as const) {
      const gateway = await startGateway({
        config: loadConfig({ PORT: '0', LOG_FORMAT: 'json', ...env }),
        logDestination: destination,
      });
      try {
        expect(gateway.sandbox!.settings.chatAnswerLength).toBe(length);
      } finally {
        await gateway.close();
      }
    }
    expect(terminal.lines.join('\n')).toContain('long answers (SANDBOX_ANSWER_LENGTH)');
    expect(() => loadConfig({ SANDBOX_ANSWER_LENGTH: 'medium' })).toThrow(
      /^SANDBOX_ANSWER_LENGTH: must be short or long, got "medium"/,
    );
  });

  it('a long answer runs about 10 s at the human pace where a short one runs 2 to 4 s: counted in tokens, not timed', async () => {
    const sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    const tokens = async (model: string) => {
      const res = await fetch(`${sandbox.baseUrls.deepseek}/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'What does a GraphQL gateway do?' }] }),
      });
      const body = (await res.json()) as {
        usage: { completion_tokens: number };
        choices: Array<{ message: { content: string } }>;
      };
      return { count: body.usage.completion_tokens, content: body.choices[0].message.content };
    };
    try {
      const short = await tokens('deepseek-flash');
      const bad = await fetch(`${sandbox.origin}/_sandbox/config`, {
        method: 'POST',
        body: JSON.stringify({ chatAnswerLength: 'epic' }),
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toBe(
        'chatAnswerLength must be short or long, got "epic"',
      );
      await fetch(`${sandbox.origin}/_sandbox/config`, {
        method: 'POST',
        body: JSON.stringify({ chatAnswerLength: 'long' }),
      });
      const long = await tokens('deepseek-flash');
      expect(short.count * HUMAN_TOKEN_DELAY_MS).toBeLessThan(4_000);
      expect(long.count * HUMAN_TOKEN_DELAY_MS).toBeGreaterThan(8_000);
      // It goes on with what else is worth knowing.
      expect(long.content).toMatch(
        /things are worth knowing about a GraphQL gateway: .*Ask about any of these for more detail\. An emulated deepseek-flash wrote this/,
      );
    } finally {
      await sandbox.close();
    }
  });
});
