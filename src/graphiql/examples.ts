import type { GraphiQLProps } from 'graphiql';
import type { GraphiqlExample } from '../domains/graphiqlExample.js';

type TabDefinition = NonNullable<GraphiQLProps['defaultTabs']>[number];

/** Where the gateway publishes its example operations (see src/transports/http/graphiql.ts). */
export const examplesUrl = '/graphiql/examples.json';

const fallbackTabs: TabDefinition[] = [{ query: '{ __typename }' }];

/** One tab per example operation; a lone `{ __typename }` tab when the gateway has none or the file is unusable. */
export async function loadDefaultTabs(): Promise<TabDefinition[]> {
  try {
    const response = await fetch(examplesUrl, { headers: { accept: 'application/json' } });
    if (!response.ok) return fallbackTabs;
    const tabs = toTabs(await response.json());
    return tabs.length > 0 ? tabs : fallbackTabs;
  } catch {
    return fallbackTabs;
  }
}

/** Characters of a comment line that the operation editor shows whole beside the result pane of a 1,400 px window. */
const COMMENT_WIDTH = 56;

function toTabs(examples: unknown): TabDefinition[] {
  if (!Array.isArray(examples)) return [];
  return examples.filter(isExample).map((example) => ({
    // Tabs are named after their first operation; the comment keeps the human title visible above it.
    query: `${commentLines(example.title)}\n${example.query.trim()}`,
    variables: formatVariables(example.variables),
  }));
}

/** `text` as `# ` comment lines of at most {@link COMMENT_WIDTH} characters, broken between words. */
export function commentLines(text: string): string {
  const lines: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= COMMENT_WIDTH) lines[last] += ` ${word}`;
    else lines.push(`# ${word}`);
  }
  return lines.join('\n');
}

function isExample(value: unknown): value is GraphiqlExample {
  const candidate = value as Partial<GraphiqlExample> | null;
  return typeof candidate?.title === 'string' && typeof candidate.query === 'string';
}

function formatVariables(variables: unknown): string | null {
  if (variables === undefined || variables === null) return null;
  if (typeof variables === 'string') return variables;
  return JSON.stringify(variables, null, 2);
}
