import { pino, type Logger } from 'pino';

/**
 * Structured JSON logs. Every string that reaches the output passes through `redact`, so a key that slipped into a
 * message or a URL is masked even where the code that logged it forgot.
 */
export function createLogger(options: {
  level: string;
  redact: (text: string) => string;
  destination?: NodeJS.WritableStream & { write(s: string): boolean };
}): Logger {
  const stream = options.destination ?? process.stdout;
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: { paths: ['headers.authorization', 'req.headers.authorization', '*.apiKey', '*.clientSecret'], censor: '[REDACTED]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (line: string) => stream.write(options.redact(line)) },
  );
}
