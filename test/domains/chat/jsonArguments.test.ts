/**
 * JSON arguments (`JSONObject`, e.g. `tools[].parameters`) have a depth and a size limit: beyond them the operation
 * is BAD_USER_INPUT naming the argument, with no upstream request, however deep the value (checked without recursion).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_ARGUMENT_LIMITS } from '../../../src/domains/chat/jsonObject.js';
import { documentNesting, MAX_DOCUMENT_NESTING } from '../../../src/pipeline/rules/documentLimits.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

const MUTATION = 'mutation Complete($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }';

/** The request body as text: JSON.stringify itself overflows the stack on 10,000 levels. */
function body(parametersJson: string): string {
  const input = `{"provider":"deepseek","model":"deepseek-flash","messages":[{"role":"USER","content":"Weather?"}],"tools":[{"name":"get_weather","parameters":${parametersJson}}]}`;
  return `{"query":${JSON.stringify(MUTATION)},"variables":{"input":${input}}}`;
}

/** `{"type":"object","p":{"p":…{}…}}` with `levels` objects in all. */
const nested = (levels: number) => `{"type":"object",${'"p":{'.repeat(levels - 1)}${'}'.repeat(levels - 1)}}`;

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

async function post(text: string) {
  t.clearUpstreamRequests();
  const res = await fetch(t.gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: any; errors?: Array<{ message: string; extensions: Record<string, any> }> },
  };
}

describe('JSON arguments', () => {
  it("refuses tools.parameters nested 10,000 levels deep as BAD_USER_INPUT, with 0 upstream requests: the variables' own depth limit holds first", async () => {
    const { body: result } = await post(body(nested(10_000)));
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'variables' });
    expect(result.errors![0].message).toContain('Variables nest deeper than 64 levels');
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it("refuses tools.parameters nested 40 levels deep (within the variables' limit) naming the argument, with 0 upstream requests", async () => {
    const { body: result } = await post(body(nested(40)));
    expect(result.errors![0].extensions.code).toBe('BAD_USER_INPUT');
    expect(result.errors![0].message).toContain('input.tools[0].parameters');
    expect(result.errors![0].message).toContain(`at most ${JSON_ARGUMENT_LIMITS.maxDepth}`);
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it(`accepts ${JSON_ARGUMENT_LIMITS.maxDepth} levels (one provider request) and refuses one more (none)`, async () => {
    const ok = await post(body(nested(JSON_ARGUMENT_LIMITS.maxDepth)));
    expect(ok.body.errors).toBeUndefined();
    expect(t.upstreamRequests('deepseek')).toHaveLength(1);
    const refused = await post(body(nested(JSON_ARGUMENT_LIMITS.maxDepth + 1)));
    expect(refused.body.errors![0].extensions.code).toBe('BAD_USER_INPUT');
    expect(refused.body.errors![0].message).toContain('input.tools[0].parameters');
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it(`refuses parameters over ${JSON_ARGUMENT_LIMITS.maxBytes} bytes as JSON, naming the argument, with 0 upstream requests`, async () => {
    const wide = JSON.stringify({ type: 'object', description: 'x'.repeat(JSON_ARGUMENT_LIMITS.maxBytes) });
    const { body: result } = await post(body(wide));
    expect(result.errors![0].extensions.code).toBe('BAD_USER_INPUT');
    expect(result.errors![0].message).toMatch(
      /input\.tools\[0\]\.parameters.*JSONObject is \d+ bytes as JSON; a JSON argument may have at most 65536/,
    );
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('refuses a literal nested 10,000 levels before parsing it (token limit), and one within the tokens by its depth', async () => {
    const literal = (
      levels: number,
    ) => `mutation { createChatCompletion(input: { provider: "deepseek", model: "deepseek-flash", messages: [{ role: USER, content: "Hi" }],
      tools: [{ name: "f", parameters: ${'{ p: '.repeat(levels)}1${' }'.repeat(levels)} }] }) { content } }`;
    const deep = await post(JSON.stringify({ query: literal(10_000) }));
    expect(deep.body.errors![0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    const over = await post(JSON.stringify({ query: literal(JSON_ARGUMENT_LIMITS.maxDepth + 1) }));
    expect(over.body.errors![0].extensions.code).toBe('BAD_USER_INPUT');
    expect(over.body.errors![0].message).toContain(`at most ${JSON_ARGUMENT_LIMITS.maxDepth}`);
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});

describe('a document nested 10,000 levels deep with the token and size limits raised', () => {
  it('is refused before parsing (graphql-js would overflow its stack), over HTTP, with 0 upstream requests', async () => {
    const raised = await startTestGateway({ GATEWAY_MAX_TOKENS: '200000', GATEWAY_MAX_DOCUMENT_BYTES: '2000000' });
    try {
      const query = `mutation { createChatCompletion(input: { provider: "deepseek", model: "deepseek-flash", messages: [{ role: USER, content: "Hi" }],
        tools: [{ name: "f", parameters: ${'{ p: '.repeat(10_000)}1${' }'.repeat(10_000)} }] }) { content } }`;
      const { body: result } = await raised.query(query);
      expect(result.errors).toHaveLength(1);
      expect(result.errors![0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', max: MAX_DOCUMENT_NESTING });
      expect(JSON.stringify(result)).not.toContain('Maximum call stack');
      expect(raised.upstreamRequests()).toHaveLength(0);
    } finally {
      await raised.close();
    }
  });

  it('counts nesting outside strings, block strings and comments only', () => {
    expect(documentNesting('{ a(x: "{{{[[[((( \\" {{") { b } }', 99)).toBe(2);
    expect(documentNesting('# {{{{{\n{ a(x: """ {{{ \\""" {{{ """) }', 99)).toBe(2);
    expect(documentNesting('{'.repeat(10_000), 256)).toBe(257);
  });
});
