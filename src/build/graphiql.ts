// Bundles GraphiQL and its Monaco workers into dist/graphiql so the gateway serves the IDE from its own files,
// with no CDN: `node dist/build/graphiql.js` (part of `npm run build`).
import * as esbuild from 'esbuild';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';

export interface GraphiqlBuildOptions {
  /**
   * The checkout to build from (holds `src/graphiql` and `node_modules`).
   * @default the folder two levels above this file, the same from `src/build` and `dist/build`
   */
  projectRoot?: string;
  /**
   * Where to write; emptied first.
   * @default `<projectRoot>/dist/graphiql`
   */
  outDir?: string;
  /**
   * Print one line per file with its plain, gzip and brotli size.
   * @default true
   */
  report?: boolean;
}

export interface GraphiqlBuildFile {
  /** Relative to `outDir`, `/` separated. */
  name: string;
  bytes: number;
  gzipBytes?: number;
  brotliBytes?: number;
}

export interface GraphiqlBuildResult {
  outDir: string;
  files: GraphiqlBuildFile[];
  durationMs: number;
}

/** Every URL the page uses lives under this path on the gateway (see src/transports/http/graphiql.ts). */
export const graphiqlPublicPath = '/graphiql';

const defaultProjectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// The three workers GraphiQL 5's Monaco editors ask for, by the label Monaco passes to getWorker.
const workerEntries = {
  'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
  'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
  'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
} as const;

const compressible = /\.(?:js|css|html|json|svg|ttf|map)$/;

// React and monaco-graphql branch on NODE_ENV; without this the development builds (and `process`) end up in the page.
const productionDefines = { 'process.env.NODE_ENV': '"production"' };

// graphiql/style.css already carries all of Monaco's CSS (and its codicon font inline). Monaco's modules import their
// own CSS too; with code splitting that CSS lands in chunk .css files nothing loads, or a second copy in app.css.
const monacoCssFromGraphiqlStyle: esbuild.Plugin = {
  name: 'monaco-css-from-graphiql-style',
  setup(build) {
    build.onResolve({ filter: /\.css$/ }, (args) =>
      /[\\/]monaco-(?:editor|graphql)[\\/]/.test(args.importer)
        ? { path: args.path, namespace: 'monaco-css' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'monaco-css' }, () => ({ contents: '', loader: 'js' }));
  },
};

export async function buildGraphiql(options: GraphiqlBuildOptions = {}): Promise<GraphiqlBuildResult> {
  const started = performance.now();
  const projectRoot = resolve(options.projectRoot ?? defaultProjectRoot);
  const outDir = resolve(options.outDir ?? join(projectRoot, 'dist', 'graphiql'));
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });

  const common = {
    absWorkingDir: projectRoot,
    bundle: true,
    minify: true,
    platform: 'browser',
    target: 'es2022',
    outdir: outDir,
    entryNames: '[name]-[hash]',
    define: productionDefines,
    metafile: true,
    logLevel: 'warning',
  } satisfies esbuild.BuildOptions;

  // Workers first: the app needs their hashed URLs. IIFE, because a classic worker cannot load an ES module bundle
  // in every browser GraphiQL supports, and esbuild cannot split code across workers anyway.
  const workers = await esbuild.build({ ...common, entryPoints: { ...workerEntries }, format: 'iife' });
  const workerUrl = (name: keyof typeof workerEntries) =>
    `${graphiqlPublicPath}/${outputFor(workers, projectRoot, outDir, name, '.js')}`;

  const app = await esbuild.build({
    ...common,
    entryPoints: { app: join(projectRoot, 'src', 'graphiql', 'main.tsx') },
    format: 'esm',
    // Monaco loads language support with import(); splitting keeps those out of the first download.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    assetNames: 'assets/[name]-[hash]',
    publicPath: graphiqlPublicPath,
    jsx: 'automatic',
    plugins: [monacoCssFromGraphiqlStyle],
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file', '.png': 'file' },
    define: {
      ...productionDefines,
      __GRAPHIQL_WORKER_URLS__: JSON.stringify({
        editor: workerUrl('editor.worker'),
        json: workerUrl('json.worker'),
        graphql: workerUrl('graphql.worker'),
      }),
    },
  });

  const html = indexHtml({
    script: `${graphiqlPublicPath}/${outputFor(app, projectRoot, outDir, 'app', '.js')}`,
    stylesheet: `${graphiqlPublicPath}/${outputFor(app, projectRoot, outDir, 'app', '.css')}`,
  });
  await writeFile(join(outDir, 'index.html'), html);

  const files = await precompress(outDir);
  const result = { outDir, files, durationMs: Math.round(performance.now() - started) };
  if (options.report ?? true) printReport(result, projectRoot);
  return result;
}

/** The one output of a build whose file name is `<name>-<hash><extension>`. */
function outputFor(
  build: esbuild.BuildResult<{ metafile: true }>,
  projectRoot: string,
  outDir: string,
  name: string,
  extension: string,
): string {
  // Metafile paths are relative to absWorkingDir (projectRoot).
  const matches = Object.keys(build.metafile.outputs)
    .map((output) => relative(outDir, resolve(projectRoot, output)))
    .filter((output) => /^[^/]+$/.test(output) && output.startsWith(`${name}-`) && output.endsWith(extension));
  if (matches.length !== 1) {
    throw new Error(
      `expected one ${name}-*${extension} in the esbuild output, found ${matches.length}: ${matches.join(', ')}`,
    );
  }
  return matches[0];
}

function indexHtml({ script, stylesheet }: { script: string; stylesheet: string }): string {
  const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>GraphiQL</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${stylesheet}" />
    <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
    <script type="module" src="${script}"></script>
  </head>
  <body>
    <div id="graphiql">
      <noscript>GraphiQL needs JavaScript. The GraphQL endpoint itself is POST /graphql.</noscript>
    </div>
  </body>
</html>
`;
  // The page must work with no internet: nothing it references may leave the gateway's origin.
  const external = page.match(/(?:src|href)="(?:[a-z][a-z0-9+.-]*:\/\/|\/\/)[^"]*"/i);
  if (external) throw new Error(`index.html references an external URL: ${external[0]}`);
  return page;
}

/** Writes `.gz` and `.br` next to each text file so the server never compresses per request. */
async function precompress(outDir: string): Promise<GraphiqlBuildFile[]> {
  const names = (await readdir(outDir, { recursive: true })).map((name) => name.split('\\').join('/')).sort();
  const files: GraphiqlBuildFile[] = [];
  await Promise.all(
    names.map(async (name) => {
      const path = join(outDir, name);
      const info = await stat(path);
      if (!info.isFile()) return;
      const file: GraphiqlBuildFile = { name, bytes: info.size };
      files.push(file);
      if (!compressible.test(name)) return;
      const body = await readFile(path);
      const [gzipped, brotlied] = await Promise.all([
        promisify(gzip)(body, { level: 9 }),
        // Quality 9 is within a few percent of 11 on these bundles at a fraction of the time.
        promisify(brotliCompress)(body, {
          params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length },
        }),
      ]);
      if (gzipped.length < body.length) {
        await writeFile(`${path}.gz`, gzipped);
        file.gzipBytes = gzipped.length;
      }
      if (brotlied.length < body.length) {
        await writeFile(`${path}.br`, brotlied);
        file.brotliBytes = brotlied.length;
      }
    }),
  );
  return files.sort((a, b) => a.name.localeCompare(b.name));
}

function printReport(result: GraphiqlBuildResult, projectRoot: string): void {
  const kib = (bytes: number | undefined) => (bytes === undefined ? '-' : `${(bytes / 1024).toFixed(1)} KiB`);
  const total = (pick: (file: GraphiqlBuildFile) => number | undefined) =>
    result.files.reduce((sum, file) => sum + (pick(file) ?? file.bytes), 0);
  const width = Math.max(...result.files.map((file) => file.name.length), 5);
  const row = (name: string, plain: string, gz: string, br: string) =>
    `  ${name.padEnd(width)}  ${plain.padStart(12)}  ${gz.padStart(12)}  ${br.padStart(12)}`;
  const lines = [
    `GraphiQL bundle in ${relative(projectRoot, result.outDir) || '.'} (${result.durationMs} ms)`,
    row('file', 'plain', 'gzip', 'brotli'),
    ...result.files.map((file) => row(file.name, kib(file.bytes), kib(file.gzipBytes), kib(file.brotliBytes))),
    row('total', kib(total(() => undefined)), kib(total((f) => f.gzipBytes)), kib(total((f) => f.brotliBytes))),
  ];
  console.log(lines.join('\n'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await buildGraphiql();
}
