// `npm run example:web` serves this page with Vite's dev server; test/examples/web.browser.test.ts builds it and
// serves the build. The page talks to one gateway only, GATEWAY_URL, whose CORS_ORIGINS must allow this origin.
import { defineConfig } from 'vite';

export const defaultGatewayUrl = 'http://127.0.0.1:4000/graphql';
export const defaultPort = 5173;

export default defineConfig({
  root: import.meta.dirname,
  // esbuild compiles the JSX (tsconfig.json's `jsx: react-jsx`); no React plugin is needed for a page without HMR state.
  define: { __GATEWAY_URL__: JSON.stringify(process.env.GATEWAY_URL ?? defaultGatewayUrl) },
  server: { host: '127.0.0.1', port: defaultPort, strictPort: true },
  preview: { host: '127.0.0.1', port: defaultPort, strictPort: true },
  build: { outDir: '../../dist/web', emptyOutDir: true },
});
