import type { GatewayContext } from '../../context/request.js';
import { warnCaller } from '../../context/warnings.js';
import { WarningCode } from '../../errors/codes.js';
import type { ChatModelSpec } from '../../upstreams/chat/provider.js';

/** One log line per deprecated model per this long, per process: enough to be seen, not one per completion. */
const LOG_EVERY_MS = 3_600_000;
const logged = new WeakMap<object, Map<string, number>>();

/** Today as YYYY-MM-DD (UTC), the form the catalogue's dates take. */
const today = (now: number) => new Date(now).toISOString().slice(0, 10);

/**
 * A completion served by a model past its `deprecatedOn` (the catalogue, or CHAT_MODEL_CATALOGUE_FILE): the answer
 * carries an `extensions.warnings` entry MODEL_RETIRING naming the day it retires and its successor, and the log says
 * so at most once an hour per model.
 */
export function announceRetiring(ctx: GatewayContext, provider: string, model: ChatModelSpec, now = Date.now()): void {
  const d = model.deprecation;
  if (!d || today(now) < d.deprecatedOn) return;
  const until = d.retiresOn ? `retires on ${d.retiresOn}` : 'retires soon';
  const move = d.successor ? `; move to ${provider} model ${d.successor}` : '';
  const message = `${provider} model ${model.id} is deprecated since ${d.deprecatedOn} and ${until}${move}.`;
  warnCaller(ctx, { code: WarningCode.ModelRetiring, message });
  const key = `${provider}/${model.id}`;
  let seen = logged.get(ctx.services);
  if (!seen) logged.set(ctx.services, (seen = new Map()));
  if ((seen.get(key) ?? -Infinity) > now - LOG_EVERY_MS) return;
  seen.set(key, now);
  ctx.services.log.warn(
    {
      provider,
      model: model.id,
      deprecatedOn: d.deprecatedOn,
      retiresOn: d.retiresOn ?? null,
      successor: d.successor ?? null,
    },
    `${message} (logged at most once an hour)`,
  );
}
