/**
 * The import rules of `src/`, checked by `npm run check:imports` (CI) and test/build/architecture.test.ts: no import circle
 * (type-only imports count), and each folder imports only the layers below it. The layers, read bottom-up, are the
 * path of a request read backwards: what an upstream call needs, then the domains, the schema, the pipeline, the
 * transports, and the wiring on top.
 *
 * A small script rather than dependency-cruiser or madge: both parse TypeScript with the compiler's JavaScript API,
 * which TypeScript 7 (the project's native compiler) does not have; the code's imports are plain enough to read
 * with one expression (`import … from`, `export … from`, `import()`), and the test below pins what it reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** Folders of `src/` from the bottom up; a folder may import its own files and any folder listed before it. */
export const LAYERS: readonly (readonly string[])[] = [
  ['errors'],
  ['config'],
  ['observability'],
  ['streams'],
  ['state'],
  ['upstreams'],
  ['trusted'],
  ['context'],
  ['planning'],
  ['execution'],
  // The generated resolver types import the domains' models (codegen's mappers); the models import the generated
  // schema types: one layer, with no circle between files (checked below).
  ['domains', 'generated'],
  ['schema'],
  ['pipeline'],
  ['transports'],
  ['app'],
  ['main'],
];

/** Folders outside the request's path: what each may import. */
export const SIDE_FOLDERS: Readonly<Record<string, readonly string[] | '*'>> = {
  // The emulators know nothing of the gateway.
  sandbox: [],
  // The browser app of GraphiQL reads the domains' example type.
  graphiql: ['domains'],
  // Tools (build steps, benchmarks) may use anything.
  build: '*',
  bench: '*',
};

/** Imports a layer may make besides the layers below it. */
export const ALSO_ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // The wiring starts the emulators in-process for the upstreams that have no credentials.
  app: ['sandbox'],
};

/**
 * Folders that may import one domain's own folder (`domains/titles/…`); every other layer sees the domains only as
 * `Domain` objects through `domains/index.ts` (and the shared files beside it), so the core names no domain.
 */
export const DOMAIN_FOLDER_IMPORTERS: readonly string[] = [
  'domains',
  // The generated resolver types map each type to its domain's model (codegen's mappers).
  'generated',
  ...Object.keys(SIDE_FOLDERS),
];

export interface ImportViolation {
  kind: 'circle' | 'layer' | 'domain';
  message: string;
}

/** Every relative import of a file: `import … from`, `export … from`, `import '…'`, `import('…')`; type-only ones too. */
export function importsOf(source: string): string[] {
  return [
    ...source.matchAll(
      /(?:^|[\s;])(?:import|export)\b[^'"`;]*?from\s*['"](\.[^'"]+)['"]|(?:^|[\s;])import\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/gm,
    ),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The import graph of the `.ts`/`.tsx` files under `root`: file → files it imports (paths relative to `root`). */
export function importGraph(root: string): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(relative(root, path));
    }
  };
  walk(root);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(readFileSync(join(root, file), 'utf8')).flatMap((spec) => {
      const base = normalize(join(dirname(file), spec)).replace(/\.js$/, '');
      const match = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((candidate) => known.has(candidate));
      return match ? [match] : [];
    });
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The top folder of a file (`pipeline/rules/x.ts` → `pipeline`), or its name for a file at the top (`main`). */
const folderOf = (file: string) => (file.includes(sep) ? file.split(sep)[0] : file.replace(/\.tsx?$/, ''));

/** Every import circle and every import that points up a layer. */
export function checkImports(root: string): ImportViolation[] {
  const graph = importGraph(root);
  const violations: ImportViolation[] = [];
  for (const circle of circles(graph))
    violations.push({ kind: 'circle', message: `import circle among ${circle.join(', ')}` });
  const level = new Map<string, number>();
  LAYERS.forEach((folders, i) => folders.forEach((f) => level.set(f, i)));
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === from) continue;
      const side = SIDE_FOLDERS[from];
      const allowed =
        side !== undefined
          ? side === '*' || side.includes(to)
          : (level.has(from) && level.has(to) && level.get(to)! <= level.get(from)!) ||
            (ALSO_ALLOWED[from]?.includes(to) ?? false);
      if (!allowed)
        violations.push({
          kind: 'layer',
          message: `${file} imports ${target}: ${from}/ may not import ${to}/ (src/build/importRules.ts)`,
        });
      else if (to === 'domains' && target.split(sep).length > 2 && !DOMAIN_FOLDER_IMPORTERS.includes(from)) {
        violations.push({
          kind: 'domain',
          message: `${file} imports ${target}: ${from}/ sees the domains only through domains/index.ts (src/build/importRules.ts)`,
        });
      }
    }
  }
  return violations;
}

/** The strongly connected components of more than one file (Tarjan), each as a path through its files. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.reverse());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
