import { BUILT_IN_CHAT_PROVIDERS, PROVIDER_VARIABLES, VARIABLES, type Variable } from './variables.js';

/**
 * The configuration guide's table and `.env.example`, both written from {@link VARIABLES} by `npm run config:docs`
 * (`src/build/config-docs.ts`); CI and a test check that the committed files are what this renders.
 */

/** The guide that holds the table, from the project root. */
export const CONFIGURATION_GUIDE = 'docs/configuration.md';

export const TABLE_START =
  '<!-- configuration table: written by `npm run config:docs` from src/config/variables.ts -->';
export const TABLE_END = '<!-- end of configuration table -->';

interface Row {
  name: string;
  variable: Variable;
}

/** Built-in provider variables, documented once per kind as `<ID>_…`. */
function rows(): Row[] {
  const own = Object.entries(VARIABLES).map(([name, variable]): Row => ({ name, variable }));
  const perProvider = Object.entries(PROVIDER_VARIABLES).map(([suffix, variable]): Row => ({
    name: `<ID>_${suffix}`,
    variable,
  }));
  return [...own, ...perProvider];
}

function defaultOf(variable: Variable): string {
  if (variable.defaultText) return variable.defaultText;
  return variable.default === undefined || variable.default === '' ? '' : `\`${variable.default}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The Markdown table, between its two marker comments. */
export function renderTable(): string {
  const ids = BUILT_IN_CHAT_PROVIDERS.map((p) => `\`${p.prefix}\``).join(', ');
  const lines = [
    TABLE_START,
    '',
    '| variable | type | default | meaning |',
    '|---|---|---|---|',
    ...rows().map(
      ({ name, variable }) =>
        `| \`${name}\` | ${variable.type.name} | ${cell(defaultOf(variable))} | ${cell(variable.description)} |`,
    ),
    '',
    `\`<ID>\` is a chat provider's upper-cased id: ${ids}, or one added with \`CHAT_PROVIDERS\`. The built-in base URLs: ` +
      BUILT_IN_CHAT_PROVIDERS.map((p) => `${p.id} \`${p.baseUrl}\``).join(', ') +
      '.',
    '',
    TABLE_END,
  ];
  return lines.join('\n');
}

/** `guide` with its table replaced by {@link renderTable}; throws when the markers are missing. */
export function withTable(guide: string): string {
  const start = guide.indexOf(TABLE_START);
  const end = guide.indexOf(TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`${CONFIGURATION_GUIDE} has no configuration table markers (${TABLE_START} … ${TABLE_END})`);
  return guide.slice(0, start) + renderTable() + guide.slice(end + TABLE_END.length);
}

const plain = (markdown: string) => markdown.replace(/\*\*|`/g, '');

/** Wraps a comment at about 116 columns, each line starting with `# `. */
function comment(text: string): string[] {
  const out: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 > 118 && line !== '#') {
      out.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...out, line];
}

function entry(name: string, variable: Variable): string[] {
  const value = variable.secret ? '' : (variable.default ?? variable.example ?? '');
  const shown =
    variable.default !== undefined
      ? `default ${variable.default || '(empty)'}`
      : variable.defaultText
        ? `default: ${plain(variable.defaultText)}`
        : 'unset by default';
  return [
    ...comment(`${plain(variable.description)} (${plain(variable.type.name)}; ${shown})`),
    `#${name}=${value}`,
    '',
  ];
}

/** `.env.example`: every variable, commented out at its default (or an example value), so a copy changes nothing. */
export function renderEnvExample(): string {
  const lines = [
    '# Every variable the gateway reads, commented out at its default: uncomment what you change.',
    `# Written by \`npm run config:docs\` from src/config/variables.ts; ${CONFIGURATION_GUIDE} says the same.`,
    '# Copy it to .env: `npm start` reads .env (what the environment sets wins), as do `docker run --env-file .env` and',
    '# an `env_file:` in docker-compose.yml. Keep .env out of git (.gitignore lists it): it holds your keys.',
    '',
    ...Object.entries(VARIABLES).flatMap(([name, variable]) => entry(name, variable)),
    ...BUILT_IN_CHAT_PROVIDERS.flatMap((p) => [
      `# --- chat provider ${p.id} ---`,
      ...(Object.entries(PROVIDER_VARIABLES) as [string, Variable][]).flatMap(([suffix, variable]) =>
        entry(`${p.prefix}_${suffix}`, {
          ...variable,
          default: suffix === 'BASE_URL' ? p.baseUrl : suffix === 'RPM' && p.rpm ? String(p.rpm) : variable.default,
        }),
      ),
    ]),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
