import { badInput } from '../../errors/codes.js';
import type {
  OpenPropertyInput,
  ServiceHealthInput,
  ServiceHealthIssueInput,
  ServiceHealthPatch,
} from '../../generated/types.js';
import { toUpstreamName, UNKNOWN } from './enums.js';

/**
 * Graph input → upstream JSON, one function per input type, refusing with BAD_USER_INPUT what the upstream would
 * refuse, before any request.
 */

const ETAG = /^(\*|(W\/)?"[^"]*")$/;

/** `ifMatch` must be an entity tag as read from `etag` (`W/"…"` or `"…"`), or `*`. */
export function checkIfMatch(ifMatch: string | null | undefined): string | undefined {
  if (ifMatch === null || ifMatch === undefined) return undefined;
  if (!ETAG.test(ifMatch.trim())) {
    throw badInput(
      `ifMatch: ${JSON.stringify(ifMatch)} is not an entity tag; pass the etag field as read (e.g. W/"abc"), or "*".`,
      'ifMatch',
    );
  }
  return ifMatch.trim();
}

/** What an id that becomes a path segment may hold. */
const ID = /^[^/\\?#%\u0000-\u001f]{1,128}$/;
/** `.` and `..`: path steps to any URL parser (their encoded forms carry `%`, refused by {@link ID}). */
const DOTS = /^\.{1,2}$/;

/**
 * An id that becomes a path segment of a Graph URL (`…/healthOverviews/{id}`): not empty, at most 128 characters,
 * without `/ \\ ? # %` or control characters, and not `.` or `..` (a URL parser resolves those as path steps, encoded
 * or not, so `healthOverview(id: "..")` would read the collection instead); refused before any request.
 */
export function checkId(id: string, argument = 'id', example = 'a service id such as "Exchange"'): string {
  if (!id.trim()) throw badInput(`${argument}: the id is empty; pass ${example}.`, argument);
  if (!ID.test(id) || DOTS.test(id))
    throw badInput(
      `${argument}: ${JSON.stringify(id.slice(0, 140))} is not an id; pass ${example} (1 to 128 characters, not . or .., without / \\ ? # or %).`,
      argument,
    );
  return id;
}

/** An enum member the upstream accepts; UNKNOWN_FUTURE_VALUE is only ever an answer. */
function member(value: string | null | undefined, argument: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value === UNKNOWN)
    throw badInput(`${argument}: ${UNKNOWN} can only be read, not written; pick a concrete value.`, argument);
  return value === 'HTML' ? 'html' : value === 'TEXT' ? 'text' : toUpstreamName(value);
}

const RESERVED = new Set(['id', 'serviceAnnouncement', 'healthOverviews', 'issues', 'messages']);

/** Open-singleton properties: plain names (no annotations, no relationships), each once. */
export function toUpstreamProperties(properties: readonly OpenPropertyInput[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const { name, value } of properties) {
    if (!/^[A-Za-z_]\w{0,127}$/.test(name) || RESERVED.has(name)) {
      throw badInput(
        `input.properties: ${JSON.stringify(name)} is not a property name you can set; use letters, digits and _ and not ${[...RESERVED].join(', ')}.`,
        'input',
      );
    }
    if (name in out)
      throw badInput(`input.properties: ${JSON.stringify(name)} is given twice; set each property once.`, 'input');
    out[name] = value ?? null;
  }
  if (!Object.keys(out).length)
    throw badInput('input.properties is empty; give at least one property to set.', 'input');
  return out;
}

export function toUpstreamServiceHealth(input: ServiceHealthInput): Record<string, unknown> {
  if (!ID.test(input.id) || DOTS.test(input.id))
    throw badInput(
      `input.id: ${JSON.stringify(input.id)} must be 1 to 128 characters, not . or .., without / \\ ? # or %.`,
      'input',
    );
  if (!input.service.trim())
    throw badInput('input.service is empty; give the service name, e.g. "Exchange Online".', 'input');
  const status = member(input.status, 'input.status');
  return { id: input.id, service: input.service, ...(status ? { status } : {}) };
}

export function toUpstreamServiceHealthPatch(input: ServiceHealthPatch): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (input.service !== undefined && input.service !== null) {
    if (!input.service.trim())
      throw badInput('input.service is empty; give the service name or leave it out.', 'input');
    out.service = input.service;
  }
  const status = member(input.status, 'input.status');
  if (status) out.status = status;
  if (!Object.keys(out).length) throw badInput('input is empty; give service or status to change.', 'input');
  return out;
}

export function toUpstreamIssue(input: ServiceHealthIssueInput): Record<string, unknown> {
  if (!input.title.trim()) throw badInput('input.title is empty; every issue needs a title.', 'input');
  const out: Record<string, unknown> = { title: input.title };
  for (const key of [
    'impactDescription',
    'feature',
    'featureGroup',
    'isResolved',
    'startDateTime',
    'endDateTime',
  ] as const) {
    if (input[key] !== undefined && input[key] !== null) out[key] = input[key];
  }
  for (const key of ['classification', 'origin', 'status'] as const) {
    const value = member(input[key], `input.${key}`);
    if (value) out[key] = value;
  }
  if (input.details) out.details = input.details.map(({ name, value }) => ({ name, value }));
  if (input.posts) {
    out.posts = input.posts.map((p, i) => ({
      createdDateTime: p.createdDateTime ?? new Date().toISOString(),
      postType: member(p.postType ?? 'REGULAR', `input.posts[${i}].postType`),
      description: {
        contentType: member(p.description.contentType ?? 'HTML', `input.posts[${i}].description.contentType`),
        content: p.description.content,
      },
    }));
  }
  return out;
}
