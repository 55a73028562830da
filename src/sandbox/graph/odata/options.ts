import { badRequest } from '../errors.js';
import { isPrimitive, propertyOf, type EntityType, type Navigation, type Prop } from '../model.js';
import { parseFilter, type Predicate } from './filter.js';

/** One query option as received: decoded name and value, and its original text for nextLinks. */
export interface RawOption {
  name: string;
  value: string;
  text: string;
}

export interface OrderKey {
  name: string;
  desc: boolean;
  prop: Prop;
}

export interface Expand {
  nav: string;
  navigation: Navigation;
  options: QueryOptions;
}

/** The parsed system query options of one level (the request, or one `$expand`). */
export interface QueryOptions {
  /** Selected names, undefined for all. */
  select?: string[];
  expand?: Expand;
  filter?: Predicate;
  orderby?: OrderKey[];
  top?: number;
  skip?: number;
  count: boolean;
  /** Options in request order, so nextLinks can keep them. */
  raw: RawOption[];
}

/** Where the options apply: a collection takes every option, a single entity only these. */
export type Scope = 'collection' | 'entity';
const ENTITY_OPTIONS = new Set(['$select', '$expand', '$format']);
const KNOWN_OPTIONS = new Set([
  '$select',
  '$expand',
  '$filter',
  '$orderby',
  '$top',
  '$skip',
  '$count',
  '$search',
  '$format',
]);
export const MAX_TOP = 999;

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw badRequest(`The query string contains malformed percent-encoding: '${text}'.`);
  }
}

/** Percent-encodes a nested option value for a nextLink, leaving OData punctuation readable. */
export const encodeOptionValue = (value: string): string =>
  encodeURIComponent(value).replace(/%24/g, '$').replace(/%2C/g, ',').replace(/%3A/g, ':').replace(/%2F/g, '/');

/** Splits on `separator` outside parentheses and string literals; throws on unbalanced parentheses. */
function splitTopLevel(text: string, separator: string, option: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0)
      throw badRequest(`Syntax error in ${option}: unbalanced ')' at position ${i} of '${text}'.`);
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0 || quoted)
    throw badRequest(`Syntax error in ${option}: unbalanced parentheses or quotes in '${text}'.`);
  parts.push(text.slice(start));
  return parts;
}

/** Parses a request's raw query string (undecoded) against the type it addresses. */
export function parseQuery(rawQuery: string, type: EntityType, scope: Scope): QueryOptions {
  const raw: RawOption[] = [];
  if (rawQuery) {
    for (const text of rawQuery.split('&')) {
      if (!text) continue;
      const eq = text.indexOf('=');
      const name = decode(eq === -1 ? text : text.slice(0, eq))
        .trim()
        .toLowerCase();
      // Graph ignores query parameters that are not system query options.
      if (!name.startsWith('$')) continue;
      raw.push({ name, value: eq === -1 ? '' : decode(text.slice(eq + 1)), text });
    }
  }
  return parseOptions(raw, type, scope);
}

function parseOptions(raw: RawOption[], type: EntityType, scope: Scope): QueryOptions {
  const options: QueryOptions = { count: false, raw };
  const seen = new Set<string>();
  for (const { name, value } of raw) {
    if (seen.has(name))
      throw badRequest(`Query option '${name}' was specified more than once, but it must be specified at most once.`);
    seen.add(name);
    if (!KNOWN_OPTIONS.has(name)) throw badRequest(`Unrecognized query argument specified: '${name}'.`);
    if (scope === 'entity' && !ENTITY_OPTIONS.has(name)) {
      throw badRequest(
        `Query option '${name}' is not allowed on a single entity of type '${type.name}'; only $select and $expand are.`,
      );
    }
    switch (name) {
      case '$select':
        options.select = parseSelect(value, type);
        break;
      case '$expand':
        options.expand = parseExpand(value, type);
        break;
      case '$filter':
        options.filter = parseFilter(value, type);
        break;
      case '$orderby':
        options.orderby = parseOrderBy(value, type);
        break;
      case '$top':
        options.top = parseInteger(name, value, 1, MAX_TOP);
        break;
      case '$skip':
        options.skip = parseInteger(name, value, 0, Number.MAX_SAFE_INTEGER);
        break;
      case '$count':
        if (value !== 'true' && value !== 'false')
          throw badRequest(`Invalid value '${value}' for $count; use true or false.`);
        options.count = value === 'true';
        break;
      case '$search':
        throw badRequest(`Query option '$search' is not supported on type '${type.name}'; use $filter.`);
      case '$format':
        if (value !== 'json' && value !== 'application/json')
          throw badRequest(`Invalid value '${value}' for $format; only json is supported.`);
        break;
    }
  }
  return options;
}

function parseInteger(name: string, value: string, min: number, max: number): number {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) {
    throw badRequest(
      `Invalid value '${value}' for ${name}; use an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'any size' : max}.`,
    );
  }
  return n;
}

function parseSelect(value: string, type: EntityType): string[] {
  const names = value.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!name) throw badRequest(`Syntax error in $select: empty property name in '${value}'.`);
    if (name !== '*' && !type.navs[name]) propertyOf(type, name);
  }
  return names;
}

function parseOrderBy(value: string, type: EntityType): OrderKey[] {
  return splitTopLevel(value, ',', '$orderby').map((part) => {
    const words = part.trim().split(/\s+/);
    const [name, direction = 'asc'] = words;
    if (!name || words.length > 2)
      throw badRequest(`Syntax error in $orderby: '${part.trim()}'; use 'property [asc|desc]'.`);
    const dir = direction.toLowerCase();
    if (dir !== 'asc' && dir !== 'desc')
      throw badRequest(`Syntax error in $orderby: expected 'asc' or 'desc' after '${name}', found '${direction}'.`);
    const prop = propertyOf(type, name);
    if (!isPrimitive(prop)) throw badRequest(`The property '${name}' cannot be used in the $orderby query option.`);
    return { name, desc: dir === 'desc', prop };
  });
}

function parseExpand(value: string, type: EntityType): Expand {
  const items = splitTopLevel(value, ',', '$expand').map((s) => s.trim());
  if (items.length > 1) throw badRequest(`Only one relationship can be expanded per level; got '${value}'.`);
  const item = items[0];
  if (item === '*') throw badRequest(`'*' is not supported in $expand; name the relationship, e.g. $expand=issues.`);
  const m = /^([A-Za-z_]\w*)\s*(?:\(([\s\S]*)\))?$/.exec(item);
  if (!m) throw badRequest(`Syntax error in $expand: '${item}'.`);
  const [, nav, inner] = m;
  const navigation = type.navs[nav];
  if (!navigation) {
    if (type.props[nav]) {
      throw badRequest(
        `Property '${nav}' on type '${type.name}' is not a navigation property or complex property. Only navigation properties can be expanded.`,
      );
    }
    throw badRequest(`Could not find a property named '${nav}' on type '${type.name}'.`);
  }
  const nested: RawOption[] = [];
  for (const part of inner === undefined ? [] : splitTopLevel(inner, ';', '$expand')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (!name.startsWith('$'))
      throw badRequest(`Unrecognized query argument specified in $expand=${nav}(...): '${name}'.`);
    const optionValue = eq === -1 ? '' : part.slice(eq + 1).trim();
    nested.push({ name, value: optionValue, text: `${name}=${encodeOptionValue(optionValue)}` });
  }
  return {
    nav,
    navigation,
    options: parseOptions(nested, navigation.target, navigation.many ? 'collection' : 'entity'),
  };
}
