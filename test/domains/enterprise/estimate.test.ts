import { buildSchema, getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { GatewayServices } from '../../../src/context/services.js';
import { estimateGraphRequests } from '../../../src/domains/enterprise/estimate.js';
import { operationShape, UpstreamEstimates } from '../../../src/planning/upstreamEstimate.js';

// The part of the enterprise schema the estimate walks, with its argument types (`id: ID!`).
const schema = buildSchema(`
  type Query { admin: Admin }
  type Admin { serviceAnnouncement: ServiceAnnouncement }
  type ServiceAnnouncement {
    healthOverview(id: ID!): ServiceHealth
    message(id: ID!): Message
  }
  type ServiceHealth { id: ID service: String }
  type Message { id: ID title: String }
`);

/** Variables that note every look at them (a value, a key, whether one is there). */
function watched(variables: Record<string, unknown>): { values: Record<string, unknown>; reads: string[] } {
  const reads: string[] = [];
  const values = new Proxy(variables, {
    get: (target, key) => (reads.push(String(key)), Reflect.get(target, key)),
    has: (target, key) => (reads.push(String(key)), Reflect.has(target, key)),
    ownKeys: (target) => (reads.push('*'), Reflect.ownKeys(target)),
  });
  return { values, reads };
}

function estimate(query: string, variables: Record<string, unknown>): { graph: number; reads: string[] } {
  const document = parse(query);
  const { values, reads } = watched(variables);
  const shape = operationShape(schema, document, getOperationAST(document)!, values);
  return { graph: estimateGraphRequests(shape, {} as GatewayServices).graph, reads };
}

describe('estimateGraphRequests', () => {
  it('counts one lookup as one request without reading its id', () => {
    const one = 'query($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { service } } } }';
    expect(estimate(one, { id: 'Exchange' })).toEqual({ graph: 1, reads: [] });
    const message = 'query($id: ID!) { admin { serviceAnnouncement { message(id: $id) { title } } } }';
    expect(estimate(message, { id: 'MC1' })).toEqual({ graph: 1, reads: [] });
  });

  it('reads the ids of several lookups of a kind, one request per batch of 20 distinct ids', () => {
    const fields = (n: number) =>
      Array.from({ length: n }, (_, i) => `h${i}: healthOverview(id: $id${i}) { service }`).join(' ');
    const declared = (n: number) => Array.from({ length: n }, (_, i) => `$id${i}: ID!`).join(', ');
    const query = (n: number) => `query(${declared(n)}) { admin { serviceAnnouncement { ${fields(n)} } } }`;
    const same = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`id${i}`, 'Exchange']));
    const distinct = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`id${i}`, `S${i}`]));
    const sameIds = estimate(query(21), same);
    expect(sameIds.graph).toBe(1);
    expect(sameIds.reads).toContain('id20');
    expect(estimate(query(21), distinct).graph).toBe(2);
    // A health and a message lookup are one request each, neither id read.
    const both =
      'query($a: ID!, $b: ID!) { admin { serviceAnnouncement { healthOverview(id: $a) { id } message(id: $b) { id } } } }';
    expect(estimate(both, { a: 'Exchange', b: 'MC1' })).toEqual({ graph: 2, reads: [] });
  });

  it('is kept for the document alone when it read no variable, and per variables when it did', () => {
    const estimates = new UpstreamEstimates({} as GatewayServices, [estimateGraphRequests]);
    const one = parse('query($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { service } } } }');
    const two = parse(
      'query($a: ID!, $b: ID!) { admin { serviceAnnouncement { x: healthOverview(id: $a) { id } y: healthOverview(id: $b) { id } } } }',
    );
    const run = (document: typeof one, variables: Record<string, unknown>) =>
      estimates.of(operationShape(schema, document, getOperationAST(document)!, variables));
    const first = run(one, { id: 'Exchange' });
    expect(first).toEqual({ graph: 1 });
    // The same object for any id: no variables key made, nothing walked again.
    expect(run(one, { id: 'SharePoint' })).toBe(first);
    expect(run(two, { a: 'Exchange', b: 'SharePoint' })).toEqual({ graph: 1 });
    expect(run(two, { a: 'Exchange', b: 'Exchange' })).not.toBe(run(two, { a: 'Exchange', b: 'SharePoint' }));
  });
});
