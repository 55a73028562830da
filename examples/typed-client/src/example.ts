/** The typed client in action: three typed operations, one line of output each result. */
import { execute } from './client.js';
import { CompletionDocument, ServiceHealthDocument, TitleDocument } from './operations.js';

export async function runExample(url: string): Promise<string[]> {
  const lines: string[] = [];
  const health = await execute(url, ServiceHealthDocument, { first: 3 });
  // Fields that cost an upstream request are nullable (null, with an error, when that upstream fails).
  for (const service of health.data?.admin.serviceAnnouncement.healthOverviews?.nodes ?? []) {
    // `status` is the schema's enum as a string union; `issues.nodes` is typed down to the selected fields.
    lines.push(`${service.service}: ${service.status} (${service.issues?.nodes.length ?? '?'} recent issues)`);
  }
  const title = await execute(url, TitleDocument, { imdbId: 'tt0078346' });
  if (title.data?.title) {
    const t = title.data.title;
    lines.push(
      `${t.title} (${t.year ?? '?'}), ${t.runtimeMinutes ?? '?'} min, ${t.genres.join('/')}, IMDb ${t.imdbRating ?? '-'}`,
    );
  }
  const completion = await execute(url, CompletionDocument, {
    input: {
      provider: 'deepseek',
      model: 'deepseek-flash',
      messages: [{ role: 'USER', content: 'Say hello in one sentence.' }],
    },
  });
  if (completion.data?.createChatCompletion) {
    const c = completion.data.createChatCompletion;
    lines.push(`${c.provider}/${c.model}: ${c.content ?? ''} [${c.usage?.totalTokens ?? 0} tokens]`);
  }
  for (const error of [...(health.errors ?? []), ...(title.errors ?? []), ...(completion.errors ?? [])]) {
    lines.push(`error ${error.extensions?.code ?? ''}: ${error.message}`);
  }
  return lines;
}
