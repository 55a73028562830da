import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node loads index.js for libraries, Vite would pick index.mjs for our code,
    // and two copies of graphql break instanceof checks ("from another module or realm"). Use Node's copy.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: integration files start their own servers; keep parallelism modest so timings stay sane.
    maxWorkers: 2,
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
