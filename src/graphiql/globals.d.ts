// Replaced at bundle time by src/build/graphiql.ts (esbuild `define`): the hashed URLs of the three Monaco workers.
declare const __GRAPHIQL_WORKER_URLS__: { editor: string; json: string; graphql: string };

// esbuild bundles imported CSS into app.css; to TypeScript it is a side-effect-only module.
declare module '*.css';
