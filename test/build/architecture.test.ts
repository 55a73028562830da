import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkImports, importsOf } from '../../src/build/importRules.js';

const src = fileURLToPath(new URL('../../src', import.meta.url));
const test = fileURLToPath(new URL('..', import.meta.url));

/**
 * The folders of test/ that do not mirror src/: whole-system tests that test no single concern (docs/development.md
 * lists them), the helpers they share and the fixtures.
 */
const NOT_MIRRORED = [
  'clients',
  'conformance',
  'docs',
  'examples',
  'federation',
  'hardening',
  'reliability',
  'support',
  'fixtures',
];

describe('test/ mirrors src/', () => {
  it('puts every test file outside the whole-system folders in the folder of the src/ concern it tests', () => {
    const astray = readdirSync(test, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(test, join(entry.parentPath, entry.name)))
      .filter((path) => path !== 'vitest.config.ts' && !NOT_MIRRORED.includes(path.split('/')[0]!))
      .filter((path) => !path.includes('/') || !existsSync(join(src, dirname(path))));
    expect(astray).toEqual([]);
  });
});

describe('the import rules of src/ (src/build/importRules.ts)', () => {
  it('hold: no import circle, type-only imports included, and no import up a layer', () => {
    expect(checkImports(src)).toEqual([]);
  });

  it('read every form of import the code uses, type-only ones included', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {\n  c,\n  type D,\n} from "./c.js";',
      "export { e } from './e.js';",
      "export type { F } from './f.js';",
      "import './side-effect.js';",
      "const g = await import('./g.js');",
      "import pino from 'pino';",
      '// a comment that says `import … from` is not an import',
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a.js', '../b.js', './c.js', './e.js', './f.js', './side-effect.js', './g.js']);
  });

  describe('on a tree that breaks them', () => {
    let root: string | undefined;
    afterEach(() => root && rmSync(root, { recursive: true, force: true }));
    const tree = (files: Record<string, string>) => {
      root = mkdtempSync(join(tmpdir(), 'imports-'));
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      return root;
    };

    it('names a circle made of type-only imports', () => {
      const violations = checkImports(
        tree({
          'pipeline/a.ts': "import type { B } from './b.js';\nexport type A = 1;",
          'pipeline/b.ts': "import type { A } from './a.js';\nexport type B = 2;",
        }),
      );
      expect(violations).toEqual([
        {
          kind: 'circle',
          message: expect.stringMatching(/^import circle among pipeline\/(a|b)\.ts, pipeline\/(a|b)\.ts$/),
        },
      ]);
    });

    it('names an import up a layer: a domain that imports a transport, state that imports a domain', () => {
      const violations = checkImports(
        tree({
          'domains/chat/x.ts': "import { y } from '../../transports/y.js';",
          'transports/y.ts': 'export const y = 1;',
          'state/z.ts': "import { x } from '../domains/chat/x.js';",
        }),
      );
      expect(violations.map((v) => v.message)).toEqual([
        'domains/chat/x.ts imports transports/y.ts: domains/ may not import transports/ (src/build/importRules.ts)',
        'state/z.ts imports domains/chat/x.ts: state/ may not import domains/ (src/build/importRules.ts)',
      ]);
    });

    it('names a generic layer that imports one domain instead of the Domain objects of domains/index.ts', () => {
      const violations = checkImports(
        tree({
          'domains/titles/quota.ts': 'export const q = 1;',
          'domains/index.ts': "export { q } from './titles/quota.js';",
          'pipeline/rules/quota.ts': "import { q } from '../../domains/titles/quota.js';",
          'schema/build.ts': "import { q } from '../domains/index.js';",
        }),
      );
      expect(violations.map((v) => v.message)).toEqual([
        'pipeline/rules/quota.ts imports domains/titles/quota.ts: pipeline/ sees the domains only through domains/index.ts (src/build/importRules.ts)',
      ]);
    });
  });
});
