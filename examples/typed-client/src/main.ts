/** `npx tsx examples/typed-client/src/main.ts [url]` against a running gateway (`npm start`). */
import { runExample } from './example.js';

const url = process.argv[2] ?? 'http://127.0.0.1:4000/graphql';
for (const line of await runExample(url)) console.log(line);
