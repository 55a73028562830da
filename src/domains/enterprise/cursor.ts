import { badInput } from '../../errors/codes.js';
import { decodedPath, skipOf, withSkip } from './odata.js';
import type { Page } from './model.js';

/**
 * Cursors are opaque to clients: base64url of `{"l": link}`, where `link` is the upstream continuation (path and
 * query below the version root). The gateway only ever sends a decoded link to its own configured Graph root, and
 * only for the collection the connection belongs to, so a crafted cursor cannot aim it at another host or resource.
 */
export function encodeCursor(link: string): string {
  return Buffer.from(JSON.stringify({ l: link })).toString('base64url');
}

/** The link inside `after`, checked to continue the collection at `collectionPath`; BAD_USER_INPUT otherwise. */
export function decodeCursor(after: string, collectionPath: string): string {
  const refuse = () =>
    badInput(
      `after: ${JSON.stringify(after.length > 60 ? `${after.slice(0, 60)}…` : after)} is not a cursor of this connection; pass a cursor (pageInfo.endCursor or edges.cursor) from the same field unchanged.`,
      'after',
    );
  let link: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(after)) throw refuse();
    link = (JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as { l?: unknown }).l;
  } catch {
    throw refuse();
  }
  if (typeof link !== 'string' || !link.startsWith('/') || /[\\#\s]|\/\/|\/\.\.?(\/|\?|$)/.test(link)) throw refuse();
  if (decodedPath(link)?.toLowerCase() !== decodedPath(collectionPath)?.toLowerCase()) throw refuse();
  return link;
}

/** The cursor of the node at `index` of the page: the link that starts right after it. */
export function cursorAt(page: Page<unknown>, index: number): string {
  if (index === page.nodes.length - 1 && page.next) return encodeCursor(page.next);
  return encodeCursor(withSkip(page.link, skipOf(page.link) + index + 1));
}

/**
 * Relay's page info. Pages are read forward only, so a page has a previous one exactly when it was read past the start
 * of its collection (`$skip` above 0, or Graph's own `$skiptoken`).
 */
export function pageInfo(page: Page<unknown>): {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
} {
  const empty = page.nodes.length === 0;
  return {
    hasNextPage: page.next !== undefined,
    hasPreviousPage: skipOf(page.link) > 0 || /[?&]\$skiptoken=/i.test(page.link),
    startCursor: empty ? null : cursorAt(page, 0),
    endCursor: page.next ? encodeCursor(page.next) : empty ? null : cursorAt(page, page.nodes.length - 1),
  };
}
