import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subjectOf } from '../../../src/sandbox/chat/compose.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';

// What the emulated models say: answers composed from the conversation, so that a person trying the gateway reads
// something that answers (issue 38), still deterministic and without any network.
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
});
afterAll(() => sandbox?.close());

interface Answer {
  content: string | null;
  reasoning?: string;
  toolCalls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

async function chat(messages: unknown[], extra: Record<string, unknown> = {}, model = 'glm-4-flash'): Promise<Answer> {
  const res = await fetch(`${sandbox.baseUrls.glm}/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, ...extra }),
  });
  expect(res.status).toBe(200);
  const message = (
    (await res.json()) as {
      choices: Array<{
        message: { content: string | null; reasoning_content?: string; tool_calls?: Answer['toolCalls'] };
      }>;
    }
  ).choices[0].message;
  return { content: message.content, reasoning: message.reasoning_content, toolCalls: message.tool_calls };
}

const user = (content: string) => ({ role: 'user', content });
const SERVICE_HEALTH = {
  type: 'function',
  function: {
    name: 'ServiceHealth',
    parameters: {
      type: 'object',
      properties: { id: { type: 'string' }, issues: { type: 'integer', default: 5 } },
      required: ['id'],
    },
  },
};

/** A conversation in which the model called ServiceHealth and got `result` back. */
const afterCall = (question: string, result: string, args = '{"id":"Exchange"}') => [
  user(question),
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ServiceHealth', arguments: args } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: result },
];

describe("a question's subject", () => {
  it.each([
    ['Is Exchange degraded right now?', 'Exchange', 'Exchange'],
    ['What does a GraphQL gateway do?', 'a GraphQL gateway', 'GraphQL gateway'],
    ['Name three uses of a message queue.', 'a message queue', 'message queue'],
    ['Weather in Hangzhou?', 'Hangzhou', 'Hangzhou'],
    ['Prompt number 3: describe item 21.', 'item 21', 'item 21'],
    ['Tell me about "The Matrix", please.', 'The Matrix', 'The Matrix'],
    ['Why are my builds slow?', 'your builds', 'builds'],
    [
      'Is Microsoft Defender for Endpoint down again?',
      'Microsoft Defender for Endpoint',
      'Microsoft Defender for Endpoint',
    ],
    ['Exchange health, then the film Alien. [[tool:ServiceHealth {"id":"Exchange"}]]', 'the film Alien', 'film Alien'],
  ])('of %j is %j (%j as a tool argument)', (question, phrase, bare) => {
    expect(subjectOf(question)).toMatchObject({ phrase, bare });
  });

  it('is none when the question has only question words or markers', () => {
    expect(subjectOf('What is it?')).toBeUndefined();
    expect(subjectOf('[[tool:ServiceHealth {"id":"Exchange"}]] [[long:100]]')).toBeUndefined();
  });
});

describe('answers composed from the conversation', () => {
  it('name the subject, end saying an emulated model wrote them, and are the same for the same request', async () => {
    const answer = await chat([user('What does a GraphQL gateway do?')]);
    expect(answer.content).toMatch(
      /^(You asked about|Here is a short answer about|A few words on|On) a GraphQL gateway\b/,
    );
    expect(answer.content).toMatch(
      /An emulated glm-4-flash wrote this; docs\/getting-started\.md says how to ask the real one\.$/,
    );
    expect((await chat([user('What does a GraphQL gateway do?')])).content).toBe(answer.content);
  });

  it('greet back when greeted', async () => {
    expect((await chat([user('Hello!')])).content).toMatch(
      /^Hello! Nice to meet you\. (Ask me anything\.|What would you like to know\?|How can I help\?) An emulated/,
    );
  });

  it("quote the tool result about the subject, and its first nested item, in the result's own words", async () => {
    const result = JSON.stringify({
      data: {
        admin: {
          serviceAnnouncement: {
            healthOverview: {
              id: 'Exchange',
              service: 'Exchange Online',
              status: 'SERVICE_DEGRADATION',
              issues: {
                nodes: [
                  {
                    id: 'EX1',
                    title: 'Mail is slow',
                    status: 'SERVICE_DEGRADATION',
                    isResolved: false,
                    startDateTime: '2026-01-05T08:30:00Z',
                  },
                  { id: 'EX2', title: 'Older', status: 'SERVICE_RESTORED', isResolved: true },
                ],
              },
            },
          },
        },
      },
    });
    const answer = await chat(afterCall('Is Exchange degraded right now?', result), { tools: [SERVICE_HEALTH] });
    expect(answer.toolCalls).toBeUndefined();
    expect(answer.content).toContain(
      'Here is what ServiceHealth returned about Exchange. According to ServiceHealth, Exchange Online (Exchange) has status service degradation. ' +
        'The first of its 2 issues, “Mail is slow” (EX1), has status service degradation and start 2026-01-05 08:30 UTC, and is not resolved.',
    );
  });

  it('pick the record that names the subject from a list, and say what a list holds when none does', async () => {
    const list = JSON.stringify({
      data: {
        healthOverviews: {
          nodes: [
            { id: 'Access', service: 'Access for the web', status: 'SERVICE_OPERATIONAL' },
            { id: 'Exchange', service: 'Exchange Online', status: 'EXTENDED_RECOVERY' },
          ],
        },
      },
    });
    expect((await chat(afterCall('Is Exchange degraded?', list))).content).toContain(
      'According to ServiceHealth, Exchange Online (Exchange) has status extended recovery.',
    );
    expect((await chat(afterCall('Is Teams degraded?', list))).content).toContain(
      'ServiceHealth returned 2 health overviews; the first, Access for the web (Access), has status service operational.',
    );
  });

  it('say that a tool failed, found nothing, or answered in plain text', async () => {
    const failed = JSON.stringify({
      data: null,
      errors: [{ message: 'Arguments of ServiceHealth are not JSON: "{".', extensions: { code: 'BAD_USER_INPUT' } }],
    });
    expect((await chat(afterCall('Is Exchange degraded?', failed))).content).toContain(
      'ServiceHealth failed: Arguments of ServiceHealth are not JSON: "{".',
    );
    const nothing = JSON.stringify({ data: { admin: { serviceAnnouncement: { healthOverview: null } } } });
    expect((await chat(afterCall('Is Berlin degraded?', nothing, '{"id":"Berlin","issues":5}'))).content).toContain(
      'ServiceHealth found nothing for id Berlin and issues 5.',
    );
    expect((await chat(afterCall('Is Exchange degraded?', 'all good'))).content).toContain(
      'ServiceHealth returned “all good”.',
    );
  });

  it("put the subject into a tool's free-text arguments, keeping defaults and patterns", async () => {
    const lookup = {
      type: 'function',
      function: {
        name: 'TitleLookup',
        parameters: { type: 'object', properties: { imdbId: { type: 'string', pattern: '^tt\\d{7,8}$' } } },
      },
    };
    const answer = await chat([user('Is Exchange degraded right now?')], { tools: [SERVICE_HEALTH, lookup] });
    expect(answer.toolCalls!.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['ServiceHealth', { id: 'Exchange', issues: 5 }],
      ['TitleLookup', { imdbId: 'tt0078346' }],
    ]);
  });

  it('reason about the subject and the tool results before answering', async () => {
    const reasoning = (
      await chat(afterCall('Is Exchange degraded?', '{"status":"ok"}'), { thinking: { type: 'enabled' } }, 'glm-4.7')
    ).reasoning!;
    expect(reasoning).toMatch(
      /^(Okay, the question is about|The user asks about|So this is about) Exchange\. ServiceHealth answered/,
    );
  });

  it("read a document placed as Kimi's file guide places it (the files API's JSON answer), and take other system messages as instructions", async () => {
    const file = JSON.stringify({
      content: 'Line one.\nThe cafeteria opens at 8.\nParking is on level 2.',
      file_type: 'text/plain',
      filename: 'notes.txt',
      title: '',
      type: 'file',
    });
    const answer = await chat([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: file },
      user('Where is parking?'),
    ]);
    expect(answer.content).toMatch(
      /^You attached notes\.txt\. The passage of notes\.txt closest to your question: “Parking is on level 2\.”/,
    );
    expect(
      (
        await chat([
          { role: 'system', content: 'Document management is your topic.' },
          user('What does a GraphQL gateway do?'),
        ])
      ).content,
    ).not.toMatch(/attached/);
  });

  it('find the passage in one pass: a document of 400 KB on one line, its answer at the end, is read whole and quoted short', async () => {
    const filler = 'Nothing to see in this sentence at all. '.repeat(5_000);
    const document = `Document: big.txt\n\n${filler}The vault code is kept by Margarethe Okonkwo in room 12. ${filler}`;
    const answer = await chat(
      [{ role: 'system', content: document }, user('Who keeps the vault code?')],
      { thinking: { type: 'enabled' } },
      'glm-4.7',
    );
    expect(answer.content).toMatch(
      /^You attached big\.txt\. The passage of big\.txt closest to your question: “The vault code is kept by Margarethe Okonkwo in room 12\.”/,
    );
    expect(answer.reasoning).toMatch(/big\.txt came with the question/);
  });

  it('never use the word the emulators take as their credential', async () => {
    const questions = [
      'How does the gateway stream tokens?',
      'What is a budget?',
      'Hello',
      'Why are my builds slow?',
      'Plan a weekend trip.',
    ];
    for (let i = 0; i < 40; i++) {
      const answer = await chat(
        [user(`${questions[i % questions.length]} (${i})`)],
        { thinking: { type: 'enabled' } },
        'glm-4.7',
      );
      expect(`${answer.content} ${answer.reasoning}`).not.toMatch(/sandbox/i);
    }
  });
});
