import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import {
  isExecutableDefinitionNode,
  Kind,
  parse,
  print,
  validate,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayNodeFlags } from '../../src/bench/lib/stack.js';
import { buildSchema } from '../../src/schema/build.js';
import { GATEWAY_DOMAINS } from '../../src/config/variables.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startOtlpReceiver } from '../support/otlp.js';

/**
 * The README and the guides in docs/ are run here: every shell command of the sections below against a test gateway,
 * every name they promise, every GraphQL sample against the schema, every path and link they mention.
 */
const root = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const GUIDES = readdirSync(new URL('docs/', root))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const DOCS = ['README.md', ...GUIDES];

/** The text of `## title` in `file`, up to the next `## ` heading. */
const section = (file: string, title: string) => {
  const text = read(file);
  const start = text.indexOf(`\n## ${title}\n`);
  expect(start, `${file} section "${title}"`).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 4);
  return text.slice(start, end === -1 ? undefined : end);
};
const blocks = (text: string, language: string) =>
  [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1].trim());
const shellBlocks = (text: string) => blocks(text, 'sh');
const oneLine = (text: string) => text.replace(/\s+/g, ' ');
/** Markdown without its fenced code blocks (their `#` lines are comments, not headings). */
const prose = (text: string) => text.replace(/```[\s\S]*?```/g, '');

/** Runs a documented command with the documented origin pointed at a test gateway. */
async function run(command: string, origin: string): Promise<string> {
  const { stdout } = await promisify(execFile)('sh', ['-c', command.replaceAll('http://127.0.0.1:4000', origin)], {
    timeout: 30_000,
  });
  return stdout;
}

describe('README: the front door', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  it('names the two commands and npm test, each a script of package.json (npm install aside)', () => {
    const commands = shellBlocks(section('README.md', 'Start'));
    expect(commands[0]).toBe('npm install\nnpm start');
    expect(commands.at(-1)).toBe('npm test');
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['start', 'test']));
  });

  it('the first query answers every upstream, each from the sandbox, in README and Getting started alike', async () => {
    const [first] = shellBlocks(section('README.md', 'Start')).filter((c) => c.startsWith('curl'));
    expect(shellBlocks(section('docs/getting-started.md', 'GraphiQL'))).toContain(first);
    const { data } = JSON.parse(await run(first, t.gateway.origin));
    expect(data.upstreams.map((u: { id: string }) => u.id)).toEqual([
      'graph',
      'omdb',
      'glm',
      'ark',
      'deepseek',
      'moonshot',
    ]);
    expect(data.upstreams.every((u: { mode: string }) => u.mode === 'SANDBOX')).toBe(true);
  });

  it('links every guide, and every guide but the upstream reference links back', () => {
    const readme = read('README.md');
    for (const guide of GUIDES) {
      expect(readme, guide).toContain(`](${guide})`);
      if (guide !== 'docs/upstreams.md') expect(read(guide), guide).toContain('](../README.md)');
    }
  });

  it('stays a front door: at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });
});

describe('Getting started: use a real provider', () => {
  it('names one variable per upstream exactly as src/config/variables.ts declares it', async () => {
    const { VARIABLES, PROVIDER_VARIABLES, BUILT_IN_CHAT_PROVIDERS } = await import('../../src/config/variables.js');
    // The table's "set" column: | upstream | set | then |
    const rows = section('docs/getting-started.md', 'Use a real provider')
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| upstream '));
    const named = rows.flatMap((row) =>
      [...row.split(' | ')[1].matchAll(/`([A-Z][A-Z0-9_]+)(?:=[^`]*)?`/g)].map((m) => m[1]),
    );
    const declared = new Set([
      ...Object.keys(VARIABLES),
      ...BUILT_IN_CHAT_PROVIDERS.flatMap((p) => Object.keys(PROVIDER_VARIABLES).map((s) => `${p.prefix}_${s}`)),
    ]);
    expect(named.filter((name) => !declared.has(name))).toEqual([]);
    for (const p of BUILT_IN_CHAT_PROVIDERS) expect(named).toContain(`${p.prefix}_API_KEY`);
    expect(named).toEqual(
      expect.arrayContaining([
        'OMDB_API_KEY',
        'GRAPH_TENANT_ID',
        'GRAPH_CLIENT_ID',
        'GRAPH_CLIENT_SECRET',
        'GRAPH_BASE_URL',
      ]),
    );
  });
});

describe('Clients and transports: Subscriptions over HTTP', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({}, { chatTokenDelayMs: 1 });
  });
  afterAll(() => t.close());

  it('the SSE command prints next events with the streamed chunks, then complete, from one upstream stream', async () => {
    const [sse] = shellBlocks(section('docs/clients-and-transports.md', 'Subscriptions over HTTP'));
    expect(sse).toContain('accept: text/event-stream');
    t.clearUpstreamRequests();
    const out = await run(sse, t.gateway.origin);
    const events = out.split('\n\n').filter(Boolean);
    expect(events.filter((e) => e.includes('event: next')).length).toBeGreaterThan(3);
    expect(out).toContain('"finishReason":"STOP"');
    expect(events.at(-1)).toMatch(/^event: complete/);
    expect(t.upstreamRequests('glm')).toHaveLength(1);
  });

  it('the multipart command prints {"payload"} parts and the closing boundary', async () => {
    const [, multipart] = shellBlocks(section('docs/clients-and-transports.md', 'Subscriptions over HTTP'));
    expect(multipart).toContain('multipart/mixed;subscriptionSpec="1.0"');
    const out = await run(multipart, t.gateway.origin);
    expect(out).toContain(
      '\r\n--graphql\r\ncontent-type: application/json; charset=utf-8\r\n\r\n{"payload":{"data":{"chatCompletionStream"',
    );
    expect(out).toContain('"finishReason":"STOP"');
    expect(out.endsWith('\r\n--graphql--\r\n')).toBe(true);
  });
});

describe('Chat: Streaming', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({}, { chatTokenDelayMs: 1 });
  });
  afterAll(() => t.close());

  it('the graphql-ws program prints the answer token by token, then the finish and the usage, from one upstream stream', async () => {
    const [program] = blocks(section('docs/chat.md', 'Streaming'), 'js');
    expect(program).toContain("createClient({ url: 'ws://127.0.0.1:4000/graphql'");
    t.clearUpstreamRequests();
    // Run from the project folder, as the guide says, so its imports resolve.
    const code = program.replaceAll('ws://127.0.0.1:4000', t.gateway.wsUrl.replace(/\/graphql$/, ''));
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
      cwd: new URL('.', root),
      timeout: 30_000,
    });
    const [answer, finish] = stdout.trimEnd().split('\n');
    expect(answer.split(' ').length).toBeGreaterThan(3);
    expect(finish).toMatch(/^STOP, \d+ tokens$/);
    expect(t.upstreamRequests('glm')).toHaveLength(1);
  });

  it('the SSE command is the one Clients and transports runs', () => {
    const [sse] = shellBlocks(section('docs/chat.md', 'Streaming'));
    expect(shellBlocks(section('docs/clients-and-transports.md', 'Subscriptions over HTTP'))).toContain(sse);
  });
});

describe('Chat: documents', () => {
  it('the curl upload sends README.md to Kimi once and answers a READY document', async () => {
    const t = await startTestGateway();
    try {
      const [command] = shellBlocks(section('docs/chat.md', 'Documents'));
      expect(command).toContain('Apollo-Require-Preflight: true');
      const { data } = JSON.parse(await run(command, t.gateway.origin));
      expect(data.uploadChatDocument).toMatchObject({
        fileName: 'README.md',
        bytes: Buffer.byteLength(read('README.md')),
        status: 'READY',
      });
      expect(t.upstreamRequests('moonshot').map((r) => `${r.method} ${r.url.split('/').slice(3, 4).join('')}`)).toEqual(
        ['POST files', 'GET files', 'POST tokenizers'],
      );
    } finally {
      await t.close();
    }
  });
});

describe('Clients and transports: @defer and @stream', () => {
  it("the curl command prints the parts in Apollo Router's format: the hits first, each title's directors after, one request per title", async () => {
    const t = await startTestGateway();
    try {
      const [command] = shellBlocks(section('docs/clients-and-transports.md', '`@defer` and `@stream`'));
      expect(command).toContain('multipart/mixed;deferSpec=20220824');
      const out = await run(command, t.gateway.origin);
      const part = '\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n';
      expect(out.startsWith(part)).toBe(true);
      expect(out.endsWith('\r\n-----\r\n')).toBe(true);
      const payloads = out
        .slice(part.length, -'\r\n-----\r\n'.length)
        .split(part)
        .map((p) => JSON.parse(p));
      expect(payloads[0].hasNext).toBe(true);
      expect(payloads[0].data.searchTitles.items).toHaveLength(6);
      expect(payloads[0].data.searchTitles.items[0]).not.toHaveProperty('directors');
      const deferred = payloads.slice(1).flatMap((p) => p.incremental);
      expect(deferred).toHaveLength(6);
      expect(deferred.every((d) => d.label === 'details' && Array.isArray(d.data.directors))).toBe(true);
      expect(payloads.at(-1).hasNext).toBe(false);
      expect(t.upstreamRequests('omdb')).toHaveLength(7);
    } finally {
      await t.close();
    }
  });
});

describe('MCP and agents: Connect an MCP client', () => {
  it('the curl command calls the ServiceHealth tool: its answer as structured content and as text, one Graph request', async () => {
    const t = await startTestGateway();
    try {
      const [command] = shellBlocks(section('docs/mcp-and-agents.md', 'Connect an MCP client'));
      expect(command).toContain('http://127.0.0.1:4000/mcp');
      const { result } = JSON.parse(await run(command, t.gateway.origin));
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.data.admin.serviceAnnouncement.healthOverview).toMatchObject({
        id: 'Exchange',
        service: 'Exchange Online',
      });
      expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
      expect(t.upstreamRequests('graph')).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('every client configuration is JSON pointing at the gateway port’s /mcp', () => {
    const configs = blocks(section('docs/mcp-and-agents.md', 'Connect an MCP client'), 'json');
    expect(configs).toHaveLength(3);
    for (const config of configs) expect(JSON.stringify(JSON.parse(config))).toContain('http://127.0.0.1:4000/mcp');
  });

  it('the tool table lists exactly the operations shipped in operations/mcp', () => {
    const table = section('docs/mcp-and-agents.md', 'Trusted operations');
    const listed = [...table.matchAll(/^\| `(\w+)/gm)].map((m) => m[1]);
    const shipped = readdirSync(new URL('operations/mcp/', root)).flatMap((f) =>
      [...read(`operations/mcp/${f}`).matchAll(/^(?:query|mutation) (\w+)/gm)].map((m) => m[1]),
    );
    expect(listed.sort()).toEqual(shipped.sort());
  });
});

describe('Operations: Tracing', () => {
  it('the traceparent command continues the caller trace, and every attribute the section names is exported', async () => {
    const receiver = await startOtlpReceiver();
    const t = await startTestGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    const tracing = section('docs/operations.md', 'Tracing');
    try {
      const [command] = shellBlocks(tracing);
      expect(JSON.parse(await run(command, t.gateway.origin)).data.title).toEqual({ title: 'Superman', year: '1978' });
      // Operations that produce the remaining attributes: a $batch and an error.
      await t.query(
        '{ admin { serviceAnnouncement { a: healthOverview(id: "Exchange Online") { id } b: healthOverview(id: "Microsoft Teams") { id } } } }',
      );
      await t.query('{ title(imdbId: "nope") { title } }');
    } finally {
      await t.close();
      await receiver.close();
    }
    const traceparent = /traceparent: 00-([0-9a-f]{32})-([0-9a-f]{16})-01/.exec(tracing)!;
    const title = receiver.spans.find((s) => s.name === 'query Title')!;
    expect(title).toMatchObject({ traceId: traceparent[1], parentSpanId: traceparent[2] });
    const promised = [...tracing.matchAll(/`((?:graphql|gateway|http|server|url|graph)\.[a-z_.]+)`/g)].map((m) => m[1]);
    expect(promised.length).toBeGreaterThan(8);
    const exported = new Set(receiver.spans.flatMap((s) => Object.keys(s.attributes)));
    for (const name of promised) expect(exported, name).toContain(name);
  });
});

describe('Operations: Logs', () => {
  it('quotes the exact line a busy port prints (test/app/operations.test.ts asserts the gateway prints it)', () => {
    expect(oneLine(section('docs/operations.md', 'Logs'))).toContain(
      '`configuration error: PORT: 127.0.0.1:4000 is already in use by another process; stop it or choose another PORT (or HOST).`',
    );
  });
});

describe('Operations: Running in containers', () => {
  const commands = () => shellBlocks(section('docs/operations.md', 'Running in containers'));

  it('names the CI rehearsal command that .ci/run runs', () => {
    const rehearsal = commands().at(-1)!;
    expect(rehearsal).toBe('node .ci/dockerfile-rehearsal.mjs');
    // On the Dockerfile's Node: PATH may put Node 24 first.
    expect(read('.ci/run')).toMatch(new RegExp(`\\n(PATH=\\S+ )?${rehearsal} \\|\\|`));
  });

  it('builds and runs the Dockerfile it describes: two stages, npm ci --omit=dev, non-root, HEALTHCHECK on /healthz, port 4000', () => {
    expect(commands()[0]).toBe('docker build -t federation-gateway .\ndocker run --rm -p 4000:4000 federation-gateway');
    const dockerfile = read('Dockerfile');
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^RUN .*npm ci --omit=dev/m);
    // The build's tools and the benchmarks stay in the build stage (the rehearsal checks the runtime stage has neither).
    expect(dockerfile).toMatch(/^RUN npm run build && rm -rf dist\/build dist\/bench$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^ENV .*HOST=0\.0\.0\.0 PORT=4000/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\/healthz/m);
    // The same V8 memory flags as `npm start` (Operations, "Performance"), so the image runs what the benchmark measured.
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    expect(cmd).toEqual(['node', ...gatewayNodeFlags(), 'dist/bundle/gateway.js']);
  });

  it('composes three gateway replicas sharing Redis through REDIS_URL, with GATEWAY_REPLICAS=3, behind port 4000', () => {
    expect(commands()[1]).toBe('docker compose up --build');
    const compose = parseYaml(read('docker-compose.yml'));
    const gateway = compose.services.gateway;
    expect(gateway.build).toBe('.');
    expect(gateway.deploy.replicas).toBe(3);
    expect(gateway.environment).toMatchObject({ REDIS_URL: 'redis://redis:6379', GATEWAY_REPLICAS: '3' });
    expect(compose.services.redis.image).toMatch(/^redis:/);
    expect(compose.services.proxy.ports).toEqual(['4000:4000']);
    // nginx resolves the replicas again every few seconds (a variable in proxy_pass), so replaced ones are reached.
    expect(compose.configs.nginx.content).toMatch(/resolver 127\.0\.0\.11 valid=\d+s/);
    // ($$ is Compose's escape of $.)
    expect(compose.configs.nginx.content).toMatch(
      /set \$\$gateway http:\/\/gateway:4000;[\s\S]*proxy_pass \$\$gateway;/,
    );
    // Docker's stop period covers the drain (SHUTDOWN_GRACE_MS) and the 5 s the process allows itself after it.
    expect(Number(/^(\d+)s$/.exec(gateway.stop_grace_period)![1]) * 1000).toBeGreaterThan(
      Number(gateway.environment.SHUTDOWN_GRACE_MS) + 5000,
    );
    expect(existsSync(new URL('.dockerignore', root))).toBe(true);
  });
});

describe('every sample in the docs', () => {
  let schema: GraphQLSchema;
  let t: TestGateway;
  beforeAll(async () => {
    schema = await buildSchema([...GATEWAY_DOMAINS]);
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  /** Each operation of each GraphQL block (a block may hold several, anonymous ones among them); SDL blocks (other subgraphs' schemas) only parse. */
  const operations = (file: string) =>
    blocks(read(file), 'graphql').flatMap((sample) =>
      parse(sample)
        .definitions.filter(isExecutableDefinitionNode)
        .map((definition) => ({ kind: Kind.DOCUMENT, definitions: [definition] }) as DocumentNode),
    );

  it.each(DOCS)(
    '%s: each GraphQL operation is valid against the served schema, and each query and mutation answers without errors',
    async (file) => {
      for (const document of operations(file)) {
        const text = print(document);
        expect(
          validate(schema, document).map((e) => e.message),
          `${file}: ${text.slice(0, 80)}`,
        ).toEqual([]);
        // Subscriptions are run by the streaming tests above; here they are only validated.
        if (text.startsWith('subscription')) continue;
        const { status, body } = await t.query(text);
        expect({ status, errors: body.errors }, `${file}: ${text.slice(0, 80)}`).toEqual({
          status: 200,
          errors: undefined,
        });
      }
    },
  );

  // docs/upstreams.md shows the upstreams' shapes with `...` in them: sketches, not samples to send.
  it.each(DOCS.filter((f) => f !== 'docs/upstreams.md'))('%s: each JSON block parses', (file) => {
    for (const sample of blocks(read(file), 'json'))
      expect(() => JSON.parse(sample), sample.slice(0, 80)).not.toThrow();
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, title] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

describe('every path and link in the docs', () => {
  /** Files and folders of the project a reader is sent to; `.ci/node24/` is made by `.ci/run` and ignored by git. */
  const PATH = /(?<![\w/.@:-])(?:src|test|docs|schema|examples|operations|bench|\.ci)\/[\w./-]*[\w/]/g;
  const ROOT_FILES =
    /`(Dockerfile|docker-compose\.yml|\.env\.example|LICENSE|schema\.graphql|codegen\.yml|tsconfig\.json|package\.json)`/g;
  const MADE_BY_TOOLS = new Set(['.ci/node24/']);

  it.each(DOCS)('%s: every path it names exists', (file) => {
    const text = read(file);
    const paths = [...new Set([...text.matchAll(PATH)].map((m) => m[0]).filter((p) => !MADE_BY_TOOLS.has(p)))];
    expect(paths.filter((p) => !existsSync(new URL(p, root)))).toEqual([]);
    const rootFiles = [...text.matchAll(ROOT_FILES)].map((m) => m[1]);
    expect(rootFiles.filter((p) => !existsSync(new URL(p, root)))).toEqual([]);
  });

  /** The notes beside the code (every .md under src/, and schema/README.md): a file they name resolves beside them, from src/ or from the root. */
  const NOTES = [
    ...readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => `src/${f}`),
    'schema/README.md',
  ];
  it.each(NOTES)('%s: every file it names exists', (file) => {
    const named = [...read(file).matchAll(/`((?:\.\.?\/)*[\w./-]+\.(?:ts|md|graphql|json))`/g)].map((m) => m[1]);
    const missing = named.filter(
      (name) =>
        ![new URL(name, new URL(file, root)), new URL(name, new URL('src/', root)), new URL(name, root)].some((url) =>
          existsSync(url),
        ),
    );
    expect(missing).toEqual([]);
  });

  it('finds the paths it checks', () => {
    expect([...read('docs/architecture.md').matchAll(PATH)].length).toBeGreaterThan(40);
  });

  it.each(DOCS)('%s: every relative link reaches a file, and its #anchor a heading there', (file) => {
    const base = new URL(file, root);
    const broken: string[] = [];
    for (const [, target] of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split('#');
      const url = path ? new URL(path, base) : base;
      if (!existsSync(url)) broken.push(target);
      else if (anchor !== undefined && url.pathname.endsWith('.md') && !anchors(readFileSync(url, 'utf8')).has(anchor))
        broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});
