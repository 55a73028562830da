/**
 * `npm run models:check`: each configured live chat provider's `GET /models` against the model catalogue (with
 * CHAT_MODEL_CATALOGUE_FILE laid over it): what is new, missing, retired but still listed, and retiring. For
 * operators with keys; providers in sandbox mode are skipped. Exits 1 when a provider's list could not be read.
 * Reads the environment like `npm start` (`.env` included); keys are sent, never printed.
 */
import { ConfigError, loadConfig, type GatewayConfig } from '../config/env.js';
import { layCatalogues } from '../upstreams/chat/catalogue.js';
import { checkModels, formatCheck } from '../upstreams/chat/models/check.js';
import { parseModelList } from '../upstreams/chat/models/listing.js';
import { providerSpec } from '../upstreams/chat/registry.js';

/** The report, line by line, and whether every live provider answered. */
export async function modelsCheck(
  config: GatewayConfig,
  fetchList: typeof fetch = fetch,
): Promise<{ lines: string[]; ok: boolean }> {
  const specs = config.chat.map(providerSpec);
  const { catalogues } = layCatalogues(config.chatModelCatalogueFile, specs);
  const lines: string[] = [];
  let ok = true;
  for (const provider of config.chat) {
    if (provider.mode !== 'live') {
      lines.push(`${provider.id}: sandbox mode (no ${provider.id.toUpperCase().replace(/-/g, '_')}_API_KEY), skipped`);
      continue;
    }
    try {
      const res = await fetchList(`${provider.baseUrl}/models`, {
        headers: {
          accept: 'application/json',
          ...(provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}),
        },
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      const listed = parseModelList(JSON.parse(text));
      lines.push(...formatCheck(provider.id, listed.length, checkModels(catalogues.get(provider.id)!, listed)));
    } catch (error) {
      ok = false;
      const reason = (error as Error).message.split(provider.apiKey ?? '\u0000').join('***');
      lines.push(`${provider.id}: GET ${provider.baseUrl}/models failed (${reason})`);
    }
  }
  return { lines, ok };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.loadEnvFile('.env');
  } catch {
    // No .env: the environment alone.
  }
  try {
    const { lines, ok } = await modelsCheck(loadConfig(process.env));
    console.log(lines.join('\n'));
    process.exit(ok ? 0 : 1);
  } catch (error) {
    if (error instanceof ConfigError)
      for (const p of error.problems) console.error(`configuration error: ${p.variable}: ${p.message}`);
    else console.error(`models:check: ${(error as Error).message}`);
    process.exit(2);
  }
}
