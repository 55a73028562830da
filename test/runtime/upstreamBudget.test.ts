import { buildSchema, getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { GatewayServices } from '../../src/context/request.js';
import { estimateUpstreamRequests, operationShape, stableEstimator, type UpstreamEstimator } from '../../src/planning/upstreamEstimate.js';

const schema = buildSchema('type Query { item(id: ID!): String }');

function counting() {
  const calls = { stable: 0, volatile: 0 };
  let cached = 0;
  const stable = stableEstimator((op) => {
    calls.stable++;
    return { a: op.operation.selectionSet.selections.length };
  });
  const volatile: UpstreamEstimator = () => {
    calls.volatile++;
    return { a: cached, b: 1 };
  };
  return { calls, estimators: [stable, volatile], setCached: (n: number) => (cached = n) };
}

describe('estimateUpstreamRequests', () => {
  it('walks a stable estimator once per operation and variables, and a volatile one every time', () => {
    const services = { shared: new Map() } as unknown as GatewayServices;
    const { calls, estimators, setCached } = counting();
    const document = parse('query Two($id: ID!) { x: item(id: $id) y: item(id: "1") }');
    const operation = getOperationAST(document)!;
    const estimate = (variables: Record<string, unknown>) => estimateUpstreamRequests(operationShape(schema, document, operation, variables), services, estimators);

    expect(estimate({ id: '7' })).toEqual({ a: 2, b: 1 });
    setCached(3);
    expect(estimate({ id: '7' })).toEqual({ a: 5, b: 1 });
    expect(calls).toEqual({ stable: 1, volatile: 2 });
    // Other variables are another estimate.
    expect(estimate({ id: '8' })).toEqual({ a: 5, b: 1 });
    expect(calls).toEqual({ stable: 2, volatile: 3 });
    // The same text parsed again is another document: nothing is shared by text across documents.
    const again = parse('query Two($id: ID!) { x: item(id: $id) y: item(id: "1") }');
    estimateUpstreamRequests(operationShape(schema, again, getOperationAST(again)!, { id: '7' }), services, estimators);
    expect(calls.stable).toBe(3);
    // Another gateway (its own services) estimates for itself.
    estimateUpstreamRequests(operationShape(schema, document, operation, { id: '7' }), { shared: new Map() } as unknown as GatewayServices, estimators);
    expect(calls.stable).toBe(4);
  });

  it('keeps a bounded number of variable sets per operation', () => {
    const services = { shared: new Map() } as unknown as GatewayServices;
    const { calls, estimators } = counting();
    const document = parse('query One($id: ID!) { item(id: $id) }');
    const operation = getOperationAST(document)!;
    for (let i = 0; i < 200; i++) estimateUpstreamRequests(operationShape(schema, document, operation, { id: String(i) }), services, estimators);
    expect(calls.stable).toBe(200);
    // The newest sets are still known; the oldest were forgotten.
    estimateUpstreamRequests(operationShape(schema, document, operation, { id: '199' }), services, estimators);
    expect(calls.stable).toBe(200);
    estimateUpstreamRequests(operationShape(schema, document, operation, { id: '0' }), services, estimators);
    expect(calls.stable).toBe(201);
  });

  it('counts nothing from an estimator that throws', () => {
    const services = { shared: new Map() } as unknown as GatewayServices;
    const document = parse('{ item(id: "1") }');
    const broken = stableEstimator(() => {
      throw new Error('bad argument');
    });
    const totals = estimateUpstreamRequests(operationShape(schema, document, getOperationAST(document)!, {}), services, [broken, () => ({ c: 2 })]);
    expect(totals).toEqual({ c: 2 });
  });
});
