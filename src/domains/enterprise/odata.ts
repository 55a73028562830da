/** OData system query options of one level, in the order they are sent: $select, $expand, $top, $orderby, $filter. */
export interface ODataOptions {
  select?: readonly string[];
  expand?: { nav: string; options: ODataOptions };
  top?: number;
  orderby?: string;
  filter?: string;
}

/** A string literal for `$filter`: single quotes, a quote inside doubled (docs/upstreams.md 1.6). */
export const odataString = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** `$select=id,title;$top=5` style pairs of one level. */
function pairs(options: ODataOptions): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (options.select?.length) out.push(['$select', options.select.join(',')]);
  if (options.expand) {
    const inner = pairs(options.expand.options)
      .map(([k, v]) => `${k}=${v}`)
      .join(';');
    out.push(['$expand', inner ? `${options.expand.nav}(${inner})` : options.expand.nav]);
  }
  if (options.top !== undefined) out.push(['$top', String(options.top)]);
  if (options.orderby) out.push(['$orderby', options.orderby]);
  if (options.filter) out.push(['$filter', options.filter]);
  return out;
}

/** The OData punctuation `encodeValue` leaves readable, by its percent-encoding. */
const PUNCTUATION: Record<string, string> = { '%24': '$', '%2C': ',', '%3B': ';', '%3D': '=' };
const punctuation = (escaped: string) => PUNCTUATION[escaped];

/** Percent-encodes a value but leaves OData punctuation readable (the upstream decodes either way); one pass. */
const encodeValue = (value: string) => {
  const encoded = encodeURIComponent(value);
  return encoded.includes('%') ? encoded.replace(/%(?:24|2C|3B|3D)/g, punctuation) : encoded;
};

/** The query string (with `?`, or '' when there are no options). */
export function toQueryString(options: ODataOptions): string {
  const p = pairs(options);
  return p.length ? `?${p.map(([k, v]) => `${k}=${encodeValue(v)}`).join('&')}` : '';
}

/** Splits a relative link into its path and its raw `name=value` parts. */
function splitLink(link: string): { path: string; parts: string[] } {
  const q = link.indexOf('?');
  return q === -1
    ? { path: link, parts: [] }
    : {
        path: link.slice(0, q),
        parts: link
          .slice(q + 1)
          .split('&')
          .filter(Boolean),
      };
}

const optionName = (part: string) => {
  const eq = part.indexOf('=');
  try {
    return decodeURIComponent(eq === -1 ? part : part.slice(0, eq)).toLowerCase();
  } catch {
    return part.toLowerCase();
  }
};

/**
 * A continuation link with this request's `$select`/`$expand` (and `$top`, when asked) in place of the ones it
 * carried: the page position (`$skip`, `$skiptoken`), order and filter stay as the upstream wrote them.
 */
export function withOptions(link: string, options: ODataOptions): string {
  const { path, parts } = splitLink(link);
  const replaced = new Set(['$select', '$expand', ...(options.top !== undefined ? ['$top'] : [])]);
  const ours = toQueryString({ select: options.select, expand: options.expand, top: options.top }).slice(1);
  const kept = parts.filter((p) => !replaced.has(optionName(p)));
  const all = [ours, ...kept].filter(Boolean);
  return all.length ? `${path}?${all.join('&')}` : path;
}

/** The `$skip` of a link (0 when absent). */
export function skipOf(link: string): number {
  const part = splitLink(link).parts.find((p) => optionName(p) === '$skip');
  const n = part ? Number(part.slice(part.indexOf('=') + 1)) : 0;
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** The link with `$skip` set to `skip`. */
export function withSkip(link: string, skip: number): string {
  const { path, parts } = splitLink(link);
  return `${path}?${[...parts.filter((p) => optionName(p) !== '$skip'), `$skip=${skip}`].join('&')}`;
}

/** The path of a link, percent-decoded, for comparisons. */
export function decodedPath(link: string): string | undefined {
  try {
    return decodeURIComponent(splitLink(link).path);
  } catch {
    return undefined;
  }
}
