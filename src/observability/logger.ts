import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type { PrettyOptions } from 'pino-pretty';

/**
 * Structured logs: JSON lines, or the same records made readable by pino-pretty for a person at a terminal. Every
 * string that reaches the output passes through `redact`, so a key that slipped into a message or a URL is masked
 * even where the code that logged it forgot.
 */
export function createLogger(options: {
  level: string;
  redact: (text: string) => string;
  destination?: NodeJS.WritableStream & { write(s: string): boolean };
  /** @default pretty when the destination is a terminal, else json */
  format?: 'json' | 'pretty';
}): Logger {
  const stream = options.destination ?? process.stdout;
  const pretty = (options.format ?? ((stream as { isTTY?: boolean }).isTTY ? 'pretty' : 'json')) === 'pretty';
  // Formatting in-process and synchronously (not pino's worker transport) keeps redaction the last step before output.
  // One line per entry, its fields as JSON after the message: a terminal's scrollback stays one event a line, as the
  // docs show it (pino-pretty's default puts each field on a line of its own).
  const prettify = pretty
    ? prettyFormatter({
        colorize: (stream as { isTTY?: boolean }).isTTY === true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        singleLine: true,
      })
    : undefined;
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: {
        paths: ['headers.authorization', 'req.headers.authorization', '*.apiKey', '*.clientSecret'],
        censor: '[REDACTED]',
      },
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (line: string) => stream.write(prettify ? prettify(options.redact(line)) : options.redact(line)) },
  );
}

/** Loaded only when asked for: a JSON-logging gateway never loads pino-pretty. */
function prettyFormatter(options: PrettyOptions): (line: string) => string {
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return prettyFactory(options);
}
