import { buildSchema as buildPlainSchema, isObjectType } from 'graphql';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildSchema, printPublicSchema, publicSchemaFile } from '../../src/schema/build.js';

describe('the public schema file (schema.graphql)', () => {
  it('matches schema/*.graphql (run `npm run schema` when this fails)', async () => {
    expect(await readFile(publicSchemaFile, 'utf8')).toBe(await printPublicSchema());
  });

  it('is every public type and field of the served schema, sorted, with descriptions, and no federation machinery', async () => {
    const text = await readFile(publicSchemaFile, 'utf8');
    for (const internal of [
      '_entities',
      '_service',
      '_Any',
      '_Entity',
      '@key',
      '@link',
      '@shareable',
      'link__',
      'federation__',
    ])
      expect(text).not.toContain(internal);
    expect(text).toContain('"""Entity tag of the current version: pass it as `ifMatch`."""');

    const plain = buildPlainSchema(text);
    const served = await buildSchema();
    const printedOrder = [...text.matchAll(/^(?:type|input|enum|scalar|union|interface) (\w+)/gm)].map((m) => m[1]);
    expect(printedOrder).toEqual([...printedOrder].sort());
    const names = Object.keys(plain.getTypeMap())
      .filter((n) => !n.startsWith('__'))
      .sort();
    expect(names).toEqual(
      Object.keys(served.getTypeMap())
        .filter((n) => !n.startsWith('_') && !n.includes('__'))
        .sort(),
    );
    for (const name of names) {
      const type = served.getType(name);
      if (!isObjectType(type)) continue;
      const publicFields = Object.keys((plain.getType(name) as typeof type).getFields());
      expect(publicFields).toEqual(
        Object.keys(type.getFields())
          .filter((f) => !f.startsWith('_'))
          .sort(),
      );
    }
  });
});
