/**
 * The domains as the rest of the gateway sees them (src/domains/index.ts): one `Domain` object each, listed once,
 * from which the schema's resolvers, the estimates, the cost hints, GraphiQL's tabs, the start-up state and the
 * domains' own pipeline rules are all read (no parallel lists to keep in step).
 */
import { describe, expect, it } from 'vitest';
import { GATEWAY_DOMAINS } from '../../src/config/env.js';
import { costHints, DOMAINS, graphiqlExamples, servedDomains } from '../../src/domains/index.js';
import { buildSchema } from '../../src/schema/build.js';

describe('DOMAINS', () => {
  it('holds one object per GATEWAY_DOMAINS name, and the shared scalars with no name', () => {
    const names = DOMAINS.map((d) => d.name);
    expect(names.filter((n) => n !== undefined).sort()).toEqual([...GATEWAY_DOMAINS].sort());
    expect(names.filter((n) => n === undefined)).toHaveLength(1);
  });

  it('serves the scalars with any set of domains, and only the named domains besides', () => {
    expect(servedDomains(['titles']).map((d) => d.name)).toEqual([undefined, 'titles']);
    expect(servedDomains([...GATEWAY_DOMAINS])).toEqual([...DOMAINS]);
  });

  it('derives GraphiQL tabs (the gateway domain first) and cost hints from the objects', () => {
    expect(graphiqlExamples).toEqual(DOMAINS.flatMap((d) => d.examples ?? []));
    expect(graphiqlExamples[0]).toBe(DOMAINS.find((d) => d.name === 'gateway')!.examples![0]);
    for (const d of DOMAINS)
      for (const field of Object.keys(d.costHints ?? {})) expect(costHints[field]).toBe(d.costHints![field]);
  });

  it('gives the pipeline its domain rules from the domains themselves: the titles domain its OMDb quota, the chat domain its stream admission', async () => {
    const schema = await buildSchema([...GATEWAY_DOMAINS]);
    const rules = DOMAINS.flatMap((d) => (d.rules?.({ schema }) ?? []).map((r) => `${d.name}:${r.name}`));
    expect(rules).toEqual(['titles:titlesQuota', 'chat:chatStreamAdmission']);
    // The response cache hears of stale answers only from a domain that says what makes them stale.
    expect(DOMAINS.filter((d) => d.staleAnswers).map((d) => d.name)).toEqual(['enterprise']);
    // Every domain that calls an upstream estimates its requests for the budget.
    expect(
      DOMAINS.filter((d) => d.estimate)
        .map((d) => d.name)
        .sort(),
    ).toEqual(['chat', 'enterprise', 'titles']);
  });
});
