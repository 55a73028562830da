// Must be imported before anything that loads Monaco: Monaco reads MonacoEnvironment when it first starts a worker.
// graphiql/setup-workers/* relies on bundler-specific `new Worker(new URL(...))` handling that esbuild lacks, so the
// workers are separate IIFE builds served by the gateway itself.
const workerUrls = __GRAPHIQL_WORKER_URLS__;

(globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    switch (label) {
      case 'json':
        return new Worker(workerUrls.json, { name: label });
      case 'graphql':
        return new Worker(workerUrls.graphql, { name: label });
      default:
        return new Worker(workerUrls.editor, { name: label });
    }
  },
};
