/**
 * The `next` message for a shared result: its JSON made once, with this subscriber's own `extensions` (its operation's
 * cost) spliced in before the closing brace, so the shared text stays whole and only a few bytes are made per
 * subscriber. A result with extensions of its own is not shared here (undefined): graphql-ws formats it.
 */
export function sharedNextText(prefix: string, json: string, extensions: Record<string, unknown> | undefined): string {
  if (!extensions) return `${prefix}${json}}`;
  return `${prefix}${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"extensions":${JSON.stringify(extensions)}}}`;
}
