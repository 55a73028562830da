import { buildSchema, getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { GatewayServices } from '../../src/context/services.js';
import {
  forDomain,
  operationShape,
  stableEstimator,
  UpstreamEstimates,
  type UpstreamEstimator,
} from '../../src/planning/upstreamEstimate.js';

const schema = buildSchema('type Query { item(id: ID!): String }');

/** A stable estimator that reads the operation's `$id` (`readsVariables`), or none of its variables. */
function counting(readsVariables = true) {
  const calls = { stable: 0, volatile: 0 };
  let cached = 0;
  const stable = stableEstimator((op) => {
    calls.stable++;
    // Its answer does not change with `$id`; reading it is what keeps the estimate per variables.
    if (readsVariables) void op.variableValues.id;
    return { a: op.operation.selectionSet.selections.length };
  });
  const volatile: UpstreamEstimator = () => {
    calls.volatile++;
    return { a: cached, b: 1 };
  };
  return { calls, estimators: [stable, volatile], setCached: (n: number) => (cached = n) };
}

describe('UpstreamEstimates', () => {
  it('walks a stable estimator once per operation and variables, and a volatile one every time', () => {
    const services = {} as GatewayServices;
    const { calls, estimators, setCached } = counting();
    const estimates = new UpstreamEstimates(services, estimators);
    const document = parse('query Two($id: ID!) { x: item(id: $id) y: item(id: "1") }');
    const operation = getOperationAST(document)!;
    const estimate = (variables: Record<string, unknown>) =>
      estimates.of(operationShape(schema, document, operation, variables));

    expect(estimate({ id: '7' })).toEqual({ a: 2, b: 1 });
    setCached(3);
    expect(estimate({ id: '7' })).toEqual({ a: 5, b: 1 });
    expect(calls).toEqual({ stable: 1, volatile: 2 });
    // Other variables are another estimate.
    expect(estimate({ id: '8' })).toEqual({ a: 5, b: 1 });
    expect(calls).toEqual({ stable: 2, volatile: 3 });
    // The same text parsed again is another document: nothing is shared by text across documents.
    const again = parse('query Two($id: ID!) { x: item(id: $id) y: item(id: "1") }');
    estimates.of(operationShape(schema, again, getOperationAST(again)!, { id: '7' }));
    expect(calls.stable).toBe(3);
    // Another gateway (its own services) estimates for itself.
    new UpstreamEstimates({} as GatewayServices, estimators).of(
      operationShape(schema, document, operation, { id: '7' }),
    );
    expect(calls.stable).toBe(4);
  });

  it('walks a stable estimator that reads no variable once per operation, whatever its variables', () => {
    const { calls, estimators } = counting(false);
    const estimates = new UpstreamEstimates({} as GatewayServices, estimators);
    const document = parse('query One($id: ID!) { item(id: $id) }');
    const operation = getOperationAST(document)!;
    for (let i = 0; i < 50; i++)
      expect(estimates.of(operationShape(schema, document, operation, { id: String(i) }))).toMatchObject({ a: 1 });
    expect(calls.stable).toBe(1);
    // Another document is walked for itself.
    const other = parse('query One($id: ID!) { item(id: $id) }');
    estimates.of(operationShape(schema, other, getOperationAST(other)!, { id: '1' }));
    expect(calls.stable).toBe(2);
  });

  it('keeps a bounded number of variable sets per operation', () => {
    const { calls, estimators } = counting();
    const estimates = new UpstreamEstimates({} as GatewayServices, estimators);
    const document = parse('query One($id: ID!) { item(id: $id) }');
    const operation = getOperationAST(document)!;
    for (let i = 0; i < 200; i++) estimates.of(operationShape(schema, document, operation, { id: String(i) }));
    expect(calls.stable).toBe(200);
    // The newest sets are still known; the oldest were forgotten.
    estimates.of(operationShape(schema, document, operation, { id: '199' }));
    expect(calls.stable).toBe(200);
    estimates.of(operationShape(schema, document, operation, { id: '0' }));
    expect(calls.stable).toBe(201);
  });

  it("runs only the estimators of the domains an operation selects (every one when they are not known), a domain's stable one still once", () => {
    const { calls, estimators } = counting();
    const [stable, volatile] = [forDomain('titles', estimators[0]), forDomain('enterprise', estimators[1])];
    expect(stable.stable).toBe(true);
    const estimates = new UpstreamEstimates({} as GatewayServices, [stable, volatile, () => ({ c: 1 })]);
    const document = parse('query One($id: ID!) { item(id: $id) }');
    const shape = operationShape(schema, document, getOperationAST(document)!, { id: '1' });
    expect(estimates.of(shape, ['titles'])).toEqual({ a: 1, c: 1 });
    expect(estimates.of(shape, ['titles'])).toEqual({ a: 1, c: 1 });
    expect(calls).toEqual({ stable: 1, volatile: 0 });
    expect(estimates.of(shape, ['enterprise'])).toEqual({ a: 0, b: 1, c: 1 });
    expect(estimates.of(shape)).toEqual({ a: 1, b: 1, c: 1 });
    expect(calls).toEqual({ stable: 2, volatile: 2 });
  });

  it('counts nothing from an estimator that throws', () => {
    const document = parse('{ item(id: "1") }');
    const broken = stableEstimator(() => {
      throw new Error('bad argument');
    });
    const totals = new UpstreamEstimates({} as GatewayServices, [broken, () => ({ c: 2 })]).of(
      operationShape(schema, document, getOperationAST(document)!, {}),
    );
    expect(totals).toEqual({ c: 2 });
  });
});
