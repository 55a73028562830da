import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { PersistedOperations } from '../pipeline/rules/persistedOperations.js';
import { ConfigError, loadConfig, type ConfigProblem, type GatewayConfig } from '../config/env.js';
import { VARIABLES } from '../config/variables.js';
import { layCatalogues } from '../upstreams/chat/catalogue.js';
import { providerSpec } from '../upstreams/chat/registry.js';
import { describeUnknown, unknownNames, type UnknownName } from '../config/unknownNames.js';

/** What `npm start` starts with: the configuration, and the names set that the gateway does not read (to warn of). */
export interface StartupConfig {
  config: GatewayConfig;
  unknownNames: UnknownName[];
}

/**
 * The configuration `npm start` runs with: {@link loadConfig}'s checks plus those that need the machine (the listen
 * address resolves, the persisted-operation manifest exists and parses), all reported together in one
 * {@link ConfigError}, before anything listens. `dotenv` is every name the `.env` file sets: under
 * `NODE_ENV=production` one that looks meant for the gateway (an owned prefix, or close to a variable) but is none
 * of its variables is a configuration error, as a wrong value is; otherwise unknown names are only warned of.
 */
export async function loadStartupConfig(
  env: NodeJS.ProcessEnv,
  dotenv: readonly string[] = [],
): Promise<StartupConfig> {
  const problems: ConfigProblem[] = [];
  let config: GatewayConfig | undefined;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  problems.push(
    ...(await checkAtStart(env.HOST || VARIABLES.HOST.default, env.PERSISTED_OPERATIONS_FILE || undefined)),
  );
  if (config?.chatModelCatalogueFile) problems.push(...checkCatalogueFile(config));
  const unknown = config
    ? unknownNames(
        env,
        dotenv,
        config.chat.map((c) => c.id),
      )
    : [];
  if (config?.production) {
    for (const u of unknown)
      if (u.source === '.env' && (u.ownedPrefix || u.closest))
        problems.push({ variable: u.name, message: describeUnknown(u) });
  }
  if (problems.length || !config) throw new ConfigError(problems);
  return { config, unknownNames: unknown };
}

/** CHAT_MODEL_CATALOGUE_FILE exists, parses, and names only successors that are not retiring themselves. */
function checkCatalogueFile(config: GatewayConfig): ConfigProblem[] {
  try {
    layCatalogues(config.chatModelCatalogueFile, config.chat.map(providerSpec));
    return [];
  } catch (error) {
    return [{ variable: 'CHAT_MODEL_CATALOGUE_FILE', message: (error as Error).message }];
  }
}

async function checkAtStart(host: string, persistedOperationsFile: string | undefined): Promise<ConfigProblem[]> {
  const problems: ConfigProblem[] = [];
  if (!isIP(host)) {
    try {
      await lookup(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'no address';
      problems.push({
        variable: 'HOST',
        message: `${JSON.stringify(host)} does not resolve (${code}); set HOST to an address of this machine or a name that resolves to one, e.g. 127.0.0.1 or 0.0.0.0`,
      });
    }
  }
  if (persistedOperationsFile) {
    try {
      PersistedOperations.load(persistedOperationsFile);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  return problems;
}
