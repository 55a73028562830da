import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

/**
 * One error formatter for every entry (src/errors/format.ts): what a client is told of an error does not depend on
 * whether the operation came over HTTP, through an /mcp tool, or from a chat model's graph tool. In production an
 * upstream's error page reaches none of them (nor the model the tool result is sent to), only the log.
 */
/** What a failing service may answer in its error envelope: its own words, an internal host name, a stack. */
const UPSTREAM_WORDS =
  '<html><body><h1>500</h1>internal-graph-node-17.corp.example: NullReferenceException at Svc.Health()</body></html>';
const HEALTH =
  'query ServiceHealth($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { id service status } } } }';
const TITLE = 'query TitleLookup($imdbId: ID) { title(imdbId: $imdbId) { imdbId title } }';
const COMPLETE =
  'mutation Complete($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content graphSteps { operation result errorCode } } }';

let t: TestGateway;
let mcp: Client;
beforeAll(async () => {
  t = await startTestGateway({ NODE_ENV: 'production', RESPONSE_CACHE_MAX_BYTES: '0' });
  mcp = new Client({ name: 'formatter-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.gateway.origin}/mcp`)));
  // The Graph app token is fetched once per gateway: fetch it before the faults are queued.
  await t.query('{ admin { serviceAnnouncement { healthOverviews(first: 1) { nodes { id } } } } }');
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});
beforeEach(() => {
  t.sandbox.faults.clear();
  t.clearUpstreamRequests();
});

/** Graph fails the next health lookup, its error envelope carrying an internal error page as its message. */
const failGraph = () =>
  t.sandbox.faults.push({
    upstream: 'graph',
    times: 1,
    status: 500,
    match: 'healthOverviews/Exchange',
    body: { error: { code: 'generalException', message: UPSTREAM_WORDS } },
  });

type Formatted = { message: string; extensions: Record<string, unknown> };

describe('one error formatter: HTTP, /mcp tools and chat graph tools tell a client the same', () => {
  it('an upstream error page in production: the same generic error over HTTP and through an MCP tool, the page only in the log', async () => {
    failGraph();
    const http = await t.query(HEALTH, { id: 'Exchange' });
    const overHttp = (http.body as { errors: Formatted[] }).errors[0];
    expect(overHttp).toMatchObject({
      message: 'The graph service failed (HTTP 500). Quote the x-request-id response header when reporting it.',
      extensions: { code: 'UPSTREAM_ERROR', upstream: 'graph', status: 500 },
    });

    failGraph();
    const tool = await mcp.callTool({ name: 'ServiceHealth', arguments: { id: 'Exchange' } });
    const throughMcp = (tool.structuredContent as { errors: Formatted[] }).errors[0];
    expect(throughMcp.message).toBe(overHttp.message);
    expect(throughMcp.extensions).toEqual(overHttp.extensions);

    expect(JSON.stringify(http.body) + JSON.stringify(tool)).not.toContain('internal-graph-node-17');
    expect(
      t.logs.lines.filter((l) => l.includes('upstream error masked') && l.includes('internal-graph-node-17')),
    ).toHaveLength(2);
    expect(t.upstreamRequests('graph')).toHaveLength(2);
  });

  it('an upstream error page in production through a chat graph tool: neither the client nor the model sees it', async () => {
    failGraph();
    const { body } = await t.query(COMPLETE, {
      input: {
        provider: 'glm',
        model: 'glm-4-flash',
        messages: [
          { role: 'USER', content: 'Is Exchange degraded? [[tool:ServiceHealth {"id":"Exchange","issues":1}]]' },
        ],
        graphTools: ['ServiceHealth'],
      },
    });
    const [step] = (
      body as { data: { createChatCompletion: { graphSteps: Array<{ result: string; errorCode: string }> } } }
    ).data.createChatCompletion.graphSteps;
    expect(step.errorCode).toBe('UPSTREAM_ERROR');
    expect(JSON.parse(step.result).errors[0].message).toBe(
      'The graph service failed (HTTP 500). Quote the x-request-id response header when reporting it.',
    );
    // The tool result the gateway sent back to the model (the provider's second request) carries the generic text too.
    const chat = t.upstreamRequests('glm').filter((r) => r.url.endsWith('/chat/completions'));
    expect(chat).toHaveLength(2);
    expect(JSON.stringify(body) + chat.map((r) => r.body).join('')).not.toContain('internal-graph-node-17');
  });

  it('a refusal reads the same over HTTP, through an MCP tool and from a graph tool: message, code and argument', async () => {
    const http = ((await t.query(TITLE, { imdbId: 'nm0000123' })).body as { errors: Formatted[] }).errors[0];
    expect(http.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'imdbId' });

    const tool = await mcp.callTool({ name: 'TitleLookup', arguments: { imdbId: 'nm0000123' } });
    const throughMcp = (tool.structuredContent as { errors: Formatted[] }).errors[0];
    expect({ message: throughMcp.message, extensions: throughMcp.extensions }).toEqual({
      message: http.message,
      extensions: http.extensions,
    });

    const { body } = await t.query(COMPLETE, {
      input: {
        provider: 'glm',
        model: 'glm-4-flash',
        messages: [{ role: 'USER', content: 'Which film is nm0000123? [[tool:TitleLookup {"imdbId":"nm0000123"}]]' }],
        graphTools: ['TitleLookup'],
      },
    });
    const [step] = (
      body as { data: { createChatCompletion: { graphSteps: Array<{ result: string; errorCode: string }> } } }
    ).data.createChatCompletion.graphSteps;
    const fromGraphTool = JSON.parse(step.result).errors[0] as Formatted;
    expect({ message: fromGraphTool.message, extensions: fromGraphTool.extensions }).toEqual({
      message: http.message,
      extensions: http.extensions,
    });
    expect(t.upstreamRequests('omdb')).toHaveLength(0);
  });

  it('an argument refused before it runs reads the same through an MCP tool and from a graph tool', async () => {
    const tool = await mcp.callTool({ name: 'ServiceHealth', arguments: { id: 'Exchange', issues: 'many' } });
    expect(tool.isError).toBe(true);
    const throughMcp = (tool.structuredContent as { errors: Formatted[] }).errors[0];
    expect(throughMcp.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });

    const { body } = await t.query(COMPLETE, {
      input: {
        provider: 'glm',
        model: 'glm-4-flash',
        messages: [
          { role: 'USER', content: 'How is Exchange? [[tool:ServiceHealth {"id":"Exchange","issues":"many"}]]' },
        ],
        graphTools: ['ServiceHealth'],
      },
    });
    const [step] = (
      body as { data: { createChatCompletion: { graphSteps: Array<{ result: string; errorCode: string }> } } }
    ).data.createChatCompletion.graphSteps;
    expect(step.errorCode).toBe('BAD_USER_INPUT');
    const fromGraphTool = JSON.parse(step.result).errors[0] as Formatted;
    expect({ message: fromGraphTool.message, extensions: fromGraphTool.extensions }).toEqual({
      message: throughMcp.message,
      extensions: throughMcp.extensions,
    });
    expect(t.upstreamRequests('graph')).toHaveLength(0);
  });
});
