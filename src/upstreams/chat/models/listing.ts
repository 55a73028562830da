import type { ListedModel } from './offer.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;

/**
 * A provider's `GET {base}/models` body (`{"object":"list","data":[{"id":…}]}`), with the facts some providers add:
 * Kimi's `context_length`, `supports_image_in` and `supports_reasoning`. Throws when the body is not such a list.
 */
export function parseModelList(json: unknown): ListedModel[] {
  const data = obj(json)?.data;
  if (!Array.isArray(data)) throw new Error('the body has no data list');
  const out: ListedModel[] = [];
  for (const item of data) {
    const m = obj(item);
    if (typeof m?.id !== 'string' || m.id === '') continue;
    const listed: ListedModel = { id: m.id };
    if (typeof m.context_length === 'number' && m.context_length > 0) listed.contextWindow = m.context_length;
    if (typeof m.supports_image_in === 'boolean') listed.vision = m.supports_image_in;
    // "Supports reasoning" says nothing of whether it can be turned off: only its absence is a fact worth keeping.
    if (m.supports_reasoning === false) listed.reasoning = 'none';
    out.push(listed);
  }
  return out;
}
