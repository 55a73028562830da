import type { EntityType, Row } from '../model.js';
import type { OrderKey, QueryOptions, RawOption } from './options.js';

/** How rendering reaches related entities, and the URL of a related collection for nested nextLinks. */
export interface Navigator {
  children(row: Row, type: EntityType, nav: string): readonly Row[] | Row | undefined;
  link(row: Row, type: EntityType, nav: string): string;
}

export interface Page {
  rows: readonly Row[];
  /** Matching rows before paging (for `@odata.count`). */
  count: number;
  /** `$skip` of the next page, when there is one. */
  nextSkip?: number;
}

function sortKey(key: OrderKey, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (key.prop === 'dateTime' && typeof v === 'string') return Date.parse(v);
  if (Array.isArray(key.prop) && typeof v === 'string') return v.toLowerCase();
  return v;
}

function sortRows(rows: Row[], keys: OrderKey[]): Row[] {
  return rows.sort((a, b) => {
    for (const key of keys) {
      const x = sortKey(key, a.value[key.name]);
      const y = sortKey(key, b.value[key.name]);
      if (x === y) continue;
      // OData sorts null lowest.
      const less = x === null ? true : y === null ? false : (x as string) < (y as string);
      return (less ? -1 : 1) * (key.desc ? -1 : 1);
    }
    return 0;
  });
}

/** Filters, sorts and cuts one page; `pageSize` applies when the options carry no `$top`. */
export function page(rows: readonly Row[], options: QueryOptions, pageSize: number): Page {
  let list: readonly Row[] = options.filter ? rows.filter((r) => options.filter!(r.value)) : rows;
  if (options.orderby) list = sortRows(list === rows ? rows.slice() : (list as Row[]), options.orderby);
  const skip = options.skip ?? 0;
  const end = skip + (options.top ?? pageSize);
  return { rows: list.slice(skip, end), count: list.length, nextSkip: end < list.length ? end : undefined };
}

/** The query of a nextLink: every option of the request except `$skip` (replaced) and `$count` (first page only). */
export function nextQuery(raw: readonly RawOption[], skip: number): string {
  const kept = raw.filter((o) => o.name !== '$skip' && o.name !== '$count').map((o) => o.text);
  kept.push(`$skip=${skip}`);
  return kept.join('&');
}

/** The `(id,service,issues())` part of a context URL, '' when nothing was selected or expanded. */
export function contextClause(type: EntityType, options: QueryOptions): string {
  const parts = (options.select ?? []).filter((name) => !type.navs[name]);
  const e = options.expand;
  if (e) parts.push(`${e.nav}(${contextClause(e.navigation.target, e.options).slice(1, -1)})`);
  return parts.length ? `(${parts.join(',')})` : '';
}

/** One entity as Graph sends it: etag first, then the selected properties, then the expanded relationship. */
export function renderEntity(
  row: Row,
  type: EntityType,
  options: QueryOptions,
  nav: Navigator,
): Record<string, unknown> {
  const out: Record<string, unknown> = { '@odata.etag': row.etag };
  const select = options.select;
  if (!select || select.includes('*')) Object.assign(out, row.value);
  else {
    for (const name of select) {
      if (type.navs[name]) continue;
      if (name in row.value) out[name] = row.value[name];
      else if (!type.open) out[name] = null;
    }
  }
  const e = options.expand;
  if (!e) return out;
  const target = e.navigation.target;
  const children = nav.children(row, type, e.nav);
  if (!Array.isArray(children)) {
    out[e.nav] = children ? renderEntity(children as Row, target, e.options, nav) : null;
    return out;
  }
  const p = page(children, e.options, Infinity);
  if (e.options.count) out[`${e.nav}@odata.count`] = p.count;
  out[e.nav] = p.rows.map((child) => renderEntity(child, target, e.options, nav));
  if (p.nextSkip !== undefined)
    out[`${e.nav}@odata.nextLink`] = `${nav.link(row, type, e.nav)}?${nextQuery(e.options.raw, p.nextSkip)}`;
  return out;
}

/** A collection response body: context, count, nextLink, value. */
export function renderCollection(
  rows: readonly Row[],
  type: EntityType,
  options: QueryOptions,
  at: { context: string; link: string; pageSize: number },
  nav: Navigator,
): Record<string, unknown> {
  const p = page(rows, options, at.pageSize);
  const body: Record<string, unknown> = { '@odata.context': at.context + contextClause(type, options) };
  if (options.count) body['@odata.count'] = p.count;
  if (p.nextSkip !== undefined) body['@odata.nextLink'] = `${at.link}?${nextQuery(options.raw, p.nextSkip)}`;
  body.value = p.rows.map((row) => renderEntity(row, type, options, nav));
  return body;
}
