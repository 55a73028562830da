/**
 * The `next` message for a shared result: its JSON made once, with this subscriber's own `extensions` (its operation's
 * cost) spliced in before the closing brace, so the shared text stays whole and only a few bytes are made per
 * subscriber. A result with extensions of its own is not shared here (undefined): graphql-ws formats it.
 */
export function sharedNextText(prefix: string, json: string, extensions: Record<string, unknown> | undefined): string {
  return `${prefix}${json.slice(0, -1)}${sharedNextTail(json, extensions)}`;
}

/**
 * What follows the shared JSON without its closing brace in a subscriber's `next` message: its own `extensions`, then
 * the result's and the message's closing braces. The one part made per subscriber; the connection writes the prefix,
 * the shared JSON and this one after the other (adapter.ts `sendShared`), the same bytes as {@link sharedNextText}.
 */
export function sharedNextTail(json: string, extensions: Record<string, unknown> | undefined): string {
  if (!extensions) return '}}';
  return `${json.length > 2 ? ',' : ''}"extensions":${JSON.stringify(extensions)}}}`;
}
