import type { UpstreamDependencies } from '../dependencies.js';
import type { ChatModels } from './models/index.js';
import { layCatalogue, readCatalogueFile, successorProblems, type CatalogueOverlay } from './models/catalogueFile.js';
import type { ProviderCatalogue } from './models/types.js';
import type { ChatProviderSpec } from './provider.js';

/**
 * Each provider's catalogue: the built-in one with CHAT_MODEL_CATALOGUE_FILE laid over it. Throws (a configuration
 * error at start-up) when the file cannot be read or parsed, or names a successor that is missing or itself retiring.
 */
export function layCatalogues(
  path: string | undefined,
  specs: readonly ChatProviderSpec[],
): { catalogues: Map<string, ProviderCatalogue>; text?: string } {
  const file = path
    ? readCatalogueFile(
        path,
        specs.map((s) => s.id),
      )
    : undefined;
  const catalogues = lay(path, specs, file?.overlay);
  return { catalogues, text: file?.text };
}

function lay(
  path: string | undefined,
  specs: readonly ChatProviderSpec[],
  overlay: CatalogueOverlay | undefined,
): Map<string, ProviderCatalogue> {
  const catalogues = new Map(specs.map((s) => [s.id, layCatalogue(s.catalogue, overlay?.[s.id], path ?? '')]));
  const problems = [...catalogues].flatMap(([id, c]) => successorProblems(id, c));
  if (problems.length) throw new Error(`CHAT_MODEL_CATALOGUE_FILE ${path}: ${problems.join('; ')}`);
  return catalogues;
}

/**
 * Reads CHAT_MODEL_CATALOGUE_FILE again every CHAT_MODELS_REFRESH_MS (0: never) and offers what it says from then on;
 * an unchanged file costs one read, a bad one is logged and the last good one kept.
 */
export function watchCatalogueFile(
  s: UpstreamDependencies,
  clients: ReadonlyMap<string, { spec: ChatProviderSpec; models: ChatModels }>,
  lastText: string | undefined,
): void {
  const path = s.config.chatModelCatalogueFile;
  const every = s.config.chatModelsRefreshMs;
  if (!path || !every) return;
  let last = lastText;
  const specs = [...clients.values()].map((c) => c.spec);
  const reload = () => {
    try {
      const file = readCatalogueFile(
        path,
        specs.map((sp) => sp.id),
      );
      if (file.text === last) return;
      const catalogues = lay(path, specs, file.overlay);
      for (const c of clients.values()) c.models.setCatalogue(catalogues.get(c.spec.id)!);
      last = file.text;
      s.log.info({ file: path }, `CHAT_MODEL_CATALOGUE_FILE ${path} read again: its models are offered from now on`);
    } catch (error) {
      s.log.warn(
        { file: path, reason: (error as Error).message },
        `${(error as Error).message}; the catalogue read before stays`,
      );
    }
  };
  const timer = setInterval(reload, every);
  timer.unref();
  s.onClose.push(() => clearInterval(timer));
}
