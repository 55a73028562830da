import { startSandbox, tokenDelayProblem } from './server.js';
import { CHAT_ANSWER_LENGTHS, DEFAULT_SETTINGS, type ChatAnswerLength } from './types.js';

/**
 * `npm run sandbox`: every emulator on SANDBOX_PORT (default 4010), printing the base URLs. Chat tokens come
 * SANDBOX_TOKEN_DELAY_MS apart (default: a pace a person can watch; a benchmark or a test sets its own).
 */
// The handlers come first: a signal sent as soon as the "listening" line is read must not meet the default action.
let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
let stopping = false;
const stop = () => {
  // A second Ctrl-C while closing changes nothing.
  if (stopping) return;
  stopping = true;
  if (!sandbox) process.exit(0);
  void sandbox.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

const port = Number(process.env.SANDBOX_PORT ?? 4010);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`SANDBOX_PORT must be a port number 0..65535, got ${JSON.stringify(process.env.SANDBOX_PORT)}`);
  process.exit(1);
}
const delayText = process.env.SANDBOX_TOKEN_DELAY_MS;
const chatTokenDelayMs =
  delayText === undefined || delayText === ''
    ? DEFAULT_SETTINGS.chatTokenDelayMs
    : /^\d+$/.test(delayText.trim())
      ? Number(delayText)
      : delayText;
const delayProblem = tokenDelayProblem(chatTokenDelayMs);
if (delayProblem) {
  console.error(`SANDBOX_TOKEN_DELAY_MS ${delayProblem}`);
  process.exit(1);
}
// A person at a terminal gets answers long enough to try Stop, as under npm start.
const lengthText = process.env.SANDBOX_ANSWER_LENGTH || (process.stdout.isTTY ? 'long' : 'short');
if (!(CHAT_ANSWER_LENGTHS as readonly string[]).includes(lengthText)) {
  console.error(`SANDBOX_ANSWER_LENGTH must be ${CHAT_ANSWER_LENGTHS.join(' or ')}, got ${JSON.stringify(lengthText)}`);
  process.exit(1);
}
const chatAnswerLength = lengthText as ChatAnswerLength;
sandbox = await startSandbox({
  port,
  host: process.env.SANDBOX_HOST ?? '127.0.0.1',
  settings: { chatTokenDelayMs: chatTokenDelayMs as number, chatAnswerLength },
});
console.log(
  `sandbox listening on ${sandbox.origin} (chat tokens ${sandbox.settings.chatTokenDelayMs} ms apart: SANDBOX_TOKEN_DELAY_MS; ${chatAnswerLength} answers: SANDBOX_ANSWER_LENGTH)`,
);
for (const [name, url] of Object.entries(sandbox.baseUrls)) console.log(`  ${name.padEnd(9)} ${url}`);
console.log(`  control   ${sandbox.origin}/_sandbox/requests, /_sandbox/faults, /_sandbox/config, /_sandbox/reset`);
