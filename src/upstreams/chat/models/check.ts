import type { ListedModel } from './offer.js';
import type { ProviderCatalogue } from './types.js';

/** One provider's live list against the catalogue (`npm run models:check`). */
export interface ModelsCheck {
  /** Listed by the provider, unknown to the catalogue: describe them (CHAT_MODEL_CATALOGUE_FILE) or let them go as unknown. */
  added: string[];
  /** In the catalogue, not listed: retired, renamed, or not open to this account. */
  missing: string[];
  /** Retired in the catalogue, yet still listed. */
  retiredButListed: string[];
  /** Deprecated in the catalogue (`deprecatedOn`), each with its dates and successor, listed or not. */
  retiring: Array<{ id: string; deprecatedOn: string; retiresOn?: string; successor?: string; listed: boolean }>;
}

/** Endpoint ids (Ark `ep-…`) are an account's own, named by ARK_ENDPOINTS: neither new nor missing. */
const isEndpoint = (id: string) => id.startsWith('ep-');

export function checkModels(catalogue: ProviderCatalogue, listed: readonly ListedModel[]): ModelsCheck {
  const ids = new Set(listed.map((m) => m.id));
  const known = new Set(catalogue.models.flatMap((m) => [m.id, ...(m.aliases ?? [])]));
  const retired = new Set(catalogue.retired.map((r) => r.id));
  return {
    added: [...ids].filter((id) => !known.has(id) && !retired.has(id) && !isEndpoint(id)),
    missing: catalogue.models
      .filter((m) => !isEndpoint(m.id) && ![m.id, ...(m.aliases ?? [])].some((n) => ids.has(n)))
      .map((m) => m.id),
    retiredButListed: catalogue.retired.filter((r) => ids.has(r.id)).map((r) => r.id),
    retiring: catalogue.models
      .filter((m) => m.deprecatedOn)
      .map((m) => ({
        id: m.id,
        deprecatedOn: m.deprecatedOn!,
        retiresOn: m.retiresOn,
        successor: m.successor,
        listed: ids.has(m.id),
      })),
  };
}

/** The report's lines for one provider. */
export function formatCheck(provider: string, listedCount: number, check: ModelsCheck): string[] {
  const list = (names: string[]) => (names.length ? names.join(', ') : 'none');
  const retiring = check.retiring.map(
    (r) =>
      `${r.id} (deprecated ${r.deprecatedOn}${r.retiresOn ? `, retires ${r.retiresOn}` : ''}${r.successor ? `, successor ${r.successor}` : ''}${r.listed ? '' : ', not listed'})`,
  );
  return [
    `${provider}: ${listedCount} models listed by GET /models`,
    `  new (listed, not in the catalogue): ${list(check.added)}`,
    `  missing (in the catalogue, not listed): ${list(check.missing)}`,
    `  retired (retired in the catalogue, still listed): ${list(check.retiredButListed)}`,
    `  retiring (deprecated in the catalogue): ${list(retiring)}`,
  ];
}
