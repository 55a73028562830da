// Bundles the compiled gateway and sandbox into dist/bundle (part of `npm run build`; `node dist/build/bundle.js`):
// what `npm start` and `npm run sandbox` run. A start from dist/'s ~300 modules and node_modules' ~1,200 spent
// about half its CPU finding, opening and linking files (bench/PROFILE.md, "The suite's CPU, sixth pass").
import * as esbuild from 'esbuild';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root: the same from `src/build` (tsx) and `dist/build` (compiled). */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where the bundles go: one flat folder, so every output file (entries and chunks) sits at the same depth. */
export const bundleDir = join(root, 'dist', 'bundle');

/** Entry name → the compiled module it bundles (tsc's output, so the bundle runs exactly what tsc emitted). */
export const bundleEntries = {
  gateway: 'dist/main.js',
  sandbox: 'dist/sandbox/main.js',
} as const;

/**
 * Packages left outside, loaded from node_modules at run time as before: ioredis, yaml and pino-pretty are loaded with
 * their first use (an idle gateway carries none of them; `createRequire` in their users), and unpdf finds PDF.js
 * through `import.meta.resolve`, which a bundle would point elsewhere. None of them shares objects with bundled code
 * (no graphql inside), so a second copy of a package cannot arise.
 */
export const external = ['ioredis', 'yaml', 'pino-pretty', 'unpdf'];

/**
 * Each module keeps its own location: `import.meta.url`, `__dirname` and `__filename` are rewritten to the file the
 * code came from, so what a module reads relative to itself (schema/*.graphql, dist/graphiql, operations/mcp, the
 * extractor's child.js, a package's worker file) resolves as it did unbundled. `createRequire(import.meta.url)(x)`
 * becomes `require(x)`: esbuild bundles it as a CommonJS module evaluated on first call (still lazy), so a package
 * required that way shares the bundle's graphql instead of loading a second one (graphql-jit's variables.js would
 * otherwise meet another realm's types); the external ones go through the `require` the banner makes.
 */
function keepLocations(outDir: string): esbuild.Plugin {
  const fromOut = (path: string) => {
    const rel = relative(outDir, path).split(sep).join('/');
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  return {
    name: 'keep-locations',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        const usesMeta = text.includes('import.meta');
        const usesDir = /\b__(?:dirname|filename)\b/.test(text);
        const ours = !args.path.includes(`${sep}node_modules${sep}`);
        const named = ours ? text.replace(packageImport, (call) => `${call}.then(__bundleNamed)`) : text;
        if (!usesMeta && !usesDir && named === text) return undefined;
        text = named;
        if (/\bimport\.meta\.(?:resolve|dirname|filename)\b/.test(text))
          throw new Error(
            `${args.path}: import.meta.resolve/dirname/filename would point into the bundle; list its package in external`,
          );
        const url = `new URL(${JSON.stringify(fromOut(args.path))}, import.meta.url).href`;
        text = text.replace(/\bcreateRequire\(import\.meta\.url\)\(/g, 'require(');
        text = text.replaceAll('import.meta.url', url);
        if (usesDir) {
          const file = `__bundlePath(${JSON.stringify(fromOut(args.path))})`;
          const dir = `__bundlePath(${JSON.stringify(fromOut(dirname(args.path)))})`;
          text = `var __filename = ${file}, __dirname = ${dir};\n${text}`;
        }
        return { contents: text, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * `import('package')` in our code, with a literal name. A chunk esbuild splits off for a CommonJS package exports its
 * `module.exports` as `default` only, where Node's import gives the named exports too (what `const { X } = await
 * import(…)` reads: tracing's OpenTelemetry packages); `__bundleNamed` adds them.
 */
const packageImport = /\bimport\((['"])(?![./])[^'"]+\1\)/g;

// Every output file starts with these: `require` for CommonJS code and the external packages, resolved from where the
// file lies (node_modules above it), and the path of a file given relative to this folder.
const banner = [
  "import { createRequire as __bundleRequire } from 'node:module';",
  "import { fileURLToPath as __bundleFileURLToPath } from 'node:url';",
  'const require = __bundleRequire(import.meta.url);',
  'const __bundlePath = (rel) => __bundleFileURLToPath(new URL(rel, import.meta.url));',
  "const __bundleNamed = (m) => { const keys = Object.keys(m); return keys.length === 1 && keys[0] === 'default' && m.default !== null && typeof m.default === 'object' ? { ...m.default, default: m.default } : m; };",
].join('\n');

/**
 * The text with each non-ASCII character of a comment replaced by `?`, one for one (a source map's columns stay
 * right); code is never changed. V8 keeps a module's source for lazy
 * compilation, one byte a character only while it is all Latin-1: a few curly quotes in undici's comments made the
 * gateway's 4 MiB chunk take 8 MiB. esbuild escapes them in strings (`charset: 'ascii'`, its default) but keeps comments.
 * What counts as a comment is read line by line (after `//`, or in a block), then checked: the text minified before
 * and after must be the same program, else the text is returned as it was.
 */
export async function asciiComments(text: string): Promise<string> {
  if (!/[^\x00-\x7f]/.test(text)) return text;
  let inBlock = false;
  const lines = text.split('\n').map((line) => {
    let out = '';
    for (let i = 0; i < line.length; i++) {
      if (!inBlock && line.startsWith('//', i)) {
        out += line.slice(i).replace(/[^\x00-\x7f]/g, '?');
        return out;
      }
      if (!inBlock && line.startsWith('/*', i)) inBlock = true;
      else if (inBlock && line.startsWith('*/', i)) inBlock = false;
      out += inBlock && line.charCodeAt(i) > 0x7f ? '?' : line[i];
    }
    return out;
  });
  const candidate = lines.join('\n');
  const program = async (code: string) =>
    (await esbuild.transform(code, { minify: true, format: 'esm', charset: 'ascii', logLevel: 'silent' })).code;
  return (await program(candidate)) === (await program(text)) ? candidate : text;
}

/** Writes dist/bundle/{gateway,sandbox}.js and their shared chunks (emptied first); the compiled modules must exist. */
export async function bundle(): Promise<esbuild.Metafile> {
  await rm(bundleDir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(bundleEntries).map(([name, path]) => [name, join(root, path)])),
    outdir: bundleDir,
    // The sandbox the gateway starts when an upstream has no key, the MCP SDK, jose and tracing's exporters are
    // imported with their first use: each stays a chunk of its own, read only then.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    // Maps back to src/*.ts through tsc's maps: `node --enable-source-maps dist/bundle/gateway.js` prints sources'
    // lines in stack traces. Names are kept (no minifying), so a trace without the maps still names its functions.
    sourcemap: 'linked',
    banner: { js: banner },
    plugins: [keepLocations(bundleDir)],
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  for (const name of Object.keys(result.metafile.outputs).filter((out) => out.endsWith('.js'))) {
    const path = join(root, name);
    const text = await readFile(path, 'utf8');
    const ascii = await asciiComments(text);
    if (ascii !== text) await writeFile(path, ascii);
  }
  return result.metafile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const metafile = await bundle();
  const outputs = Object.entries(metafile.outputs).filter(([name]) => name.endsWith('.js'));
  const bytes = outputs.reduce((sum, [, o]) => sum + o.bytes, 0);
  console.log(
    `bundled ${Object.keys(bundleEntries).join(' and ')} into ${relative(root, bundleDir)}/: ${outputs.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB`,
  );
}
