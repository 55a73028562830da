/**
 * The company subgraphs docs/federation.md shows are shipped in examples/federation/: each composes with this
 * subgraph as the guide says (SUBGRAPH_TYPE_PREFIX=Ops, the override of `plot`), with both composers, and every line
 * of the guide's SDL examples is a line of its file, so the guide cannot drift from what is composed here.
 */
import { parse } from 'graphql';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { subgraphSdl } from '../../src/schema/build.js';
import { compositionErrors, supergraph, type Subgraph } from '../federation/routing.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const folder = join(root, 'examples/federation');
const guide = readFileSync(join(root, 'docs/federation.md'), 'utf8');
const files = readdirSync(folder).filter((f) => f.endsWith('.graphql'));

const company = (): Subgraph[] =>
  files.map((f) => ({
    name: f.replace('.graphql', ''),
    url: `http://${f.replace('.graphql', '')}.internal/graphql`,
    typeDefs: parse(readFileSync(join(folder, f), 'utf8')),
  }));

async function ours(env: Record<string, string>): Promise<Subgraph> {
  const config = loadConfig({ SUBGRAPH_TYPE_PREFIX: 'Ops', ...env });
  return {
    name: 'ops',
    url: 'http://ops.internal/graphql',
    typeDefs: parse(await subgraphSdl(config.domains, config.subgraph)),
  };
}

/** The guide's SDL blocks that open with `# <file>: …`, by file. */
function guideExamples(): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  for (const [, block] of guide.matchAll(/```graphql\n([\s\S]*?)```/g)) {
    const named = /^# ([a-z]+): /.exec(block);
    if (named) blocks.set(named[1], block.trim().split('\n'));
  }
  return blocks;
}

describe('examples/federation', () => {
  it('holds every company SDL the guide shows, line for line', () => {
    const examples = guideExamples();
    expect([...examples.keys()].sort()).toEqual(files.map((f) => f.replace('.graphql', '')).sort());
    for (const [name, lines] of examples) {
      const file = readFileSync(join(folder, `${name}.graphql`), 'utf8').split('\n');
      for (const line of lines) expect(file, `${name}.graphql`).toContain(line);
    }
  });

  it.each(['apollo', 'guild'] as const)(
    'composes with this subgraph under SUBGRAPH_TYPE_PREFIX=Ops and the override of plot (%s composer)',
    async (composer) => {
      const subgraphs = [await ours({ SUBGRAPH_OVERRIDES: 'OpsTitle.plot=movies@percent(10)' }), ...company()];
      expect(compositionErrors(composer, subgraphs)).toEqual([]);
      const sdl = supergraph(composer, subgraphs);
      expect(sdl).toMatch(/favoriteMovie: OpsTitle/);
      expect(sdl).toMatch(/openTickets: \[Ticket!\]!/);
      expect(sdl).toMatch(/override: "movies", overrideLabel: "percent\(10\)"/);
      expect(sdl).toMatch(/override: "ops", overrideLabel: "percent\(25\)"/);
    },
  );
});

describe("the guide's Federation version", () => {
  it('is the one the subgraph SDL links', async () => {
    const sdl = await subgraphSdl();
    const linked = /specs\.apollo\.dev\/federation\/(v2\.\d+)/.exec(sdl)?.[1];
    expect(linked).toBeDefined();
    const said = /`schema\/subgraph\.graphql` links federation (v2\.\d+)/.exec(guide)?.[1];
    expect(said).toBe(linked);
  });
});
