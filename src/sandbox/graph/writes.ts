import { badRequest, GraphError, GraphErrorCode } from './errors.js';
import { CLASSIFICATION, enumMember, ORIGIN, POST_TYPE, SERVICE_HEALTH_STATUS, type EntityType } from './model.js';

/** Applies `If-Match`: absent or `*` passes; a stale tag is 412, an unquoted one 400 (docs/upstreams.md 1.7). */
export function checkIfMatch(header: string | undefined, etag: string): void {
  if (header === undefined) return;
  const value = header.trim();
  if (value === '*') return;
  const tags = value.split(',').map((t) => t.trim());
  const bad = tags.find((t) => !/^(W\/)?"[^"]*"$/.test(t));
  if (bad !== undefined) {
    throw new GraphError(
      400,
      GraphErrorCode.MalformedEntityTag,
      `The If-Match value '${bad}' is not a valid entity tag; send it quoted, as in @odata.etag (W/"...").`,
    );
  }
  const opaque = (t: string) => t.replace(/^W\//, '');
  if (!tags.some((t) => opaque(t) === opaque(etag))) {
    throw new GraphError(
      412,
      GraphErrorCode.ResourceModified,
      'The resource has been modified since it was read (entityTagDoesNotMatch): the If-Match entity tag is stale. Read the resource again and retry with its current @odata.etag.',
      'entityTagDoesNotMatch',
    );
  }
}

type Check = (value: unknown, name: string) => unknown;

const text: Check = (v, name) => {
  if (typeof v !== 'string' || !v.trim()) throw badRequest(`The property '${name}' must be a non-empty string.`);
  return v;
};
const optionalText: Check = (v, name) => {
  if (v !== null && typeof v !== 'string') throw badRequest(`The property '${name}' must be a string or null.`);
  return v;
};
const boolean: Check = (v, name) => {
  if (typeof v !== 'boolean') throw badRequest(`The property '${name}' must be true or false.`);
  return v;
};
const dateTime: Check = (v, name) => {
  if (v === null) return v;
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(Date.parse(v))) {
    throw badRequest(`The property '${name}' must be an ISO 8601 DateTimeOffset such as 2024-05-01T10:00:00Z.`);
  }
  return v;
};
const oneOf =
  (members: readonly string[]): Check =>
  (v, name) => {
    const member = typeof v === 'string' ? enumMember(members, v) : undefined;
    if (!member)
      throw badRequest(
        `'${String(v)}' is not a valid value for the property '${name}'; use one of ${members.join(', ')}.`,
      );
    return member;
  };
const keyValues: Check = (v, name) => {
  const ok = Array.isArray(v) && v.every((kv) => typeof kv?.name === 'string' && typeof kv?.value === 'string');
  if (!ok) throw badRequest(`The property '${name}' must be an array of {"name": string, "value": string}.`);
  return (v as { name: string; value: string }[]).map(({ name: n, value }) => ({ name: n, value }));
};
const posts: Check = (v, name) => {
  if (!Array.isArray(v)) throw badRequest(`The property '${name}' must be an array of posts.`);
  return v.map((post, i) => {
    const content = post?.description?.content;
    if (typeof content !== 'string')
      throw badRequest(`The property '${name}[${i}].description.content' must be a string.`);
    return {
      createdDateTime: dateTime(post.createdDateTime ?? null, `${name}[${i}].createdDateTime`),
      postType: oneOf(POST_TYPE)(post.postType ?? 'Regular', `${name}[${i}].postType`),
      description: {
        contentType: oneOf(['Html', 'Text'])(
          post.description.contentType ?? 'Html',
          `${name}[${i}].description.contentType`,
        ),
        content,
      },
    };
  });
};

function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** Checks each property of a body; annotations (`@odata.type`) are ignored, read-only and unknown names are 400. */
function readProperties(
  body: unknown,
  type: EntityType,
  checks: Record<string, Check>,
  readOnly: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(requireObject(body))) {
    if (name.startsWith('@')) continue;
    if (readOnly.includes(name)) throw badRequest(`The property '${name}' is read-only and cannot be set.`);
    const check = checks[name];
    if (!check) {
      if (type.navs[name]) throw badRequest(`The navigation property '${name}' cannot be written here.`);
      throw badRequest(`Could not find a property named '${name}' on type '${type.name}'.`);
    }
    out[name] = check(value, name);
  }
  return out;
}

function requireAll(values: Record<string, unknown>, names: readonly string[]): void {
  const missing = names.find((n) => values[n] === undefined);
  if (missing) throw badRequest(`The property '${missing}' is required.`);
}

/** PATCH of an open singleton: primitive values only. */
export function openTypePatch(body: unknown, type: EntityType): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(requireObject(body))) {
    if (name.startsWith('@')) continue;
    if (type.navs[name]) throw badRequest(`The navigation property '${name}' cannot be written with PATCH.`);
    if (!/^[A-Za-z_]\w*$/.test(name)) throw badRequest(`'${name}' is not a valid property name.`);
    if (value !== null && typeof value === 'object') {
      throw badRequest(
        `The property '${name}' must be a primitive value (string, number, boolean or null); objects and arrays are not accepted on '${type.name}'.`,
      );
    }
    out[name] = value;
  }
  return out;
}

const serviceHealthChecks = {
  id: (v: unknown, name: string) => {
    const id = text(v, name) as string;
    if (id.length > 128 || /[/\\?#%\u0000-\u001f]/.test(id))
      throw badRequest(`The property 'id' must be at most 128 characters without / \\ ? # or %.`);
    return id;
  },
  service: text,
  status: oneOf(SERVICE_HEALTH_STATUS),
};

export function serviceHealthCreate(body: unknown, type: EntityType): Record<string, unknown> & { id: string } {
  const v = readProperties(body, type, serviceHealthChecks, []);
  requireAll(v, ['id', 'service']);
  return { service: v.service, status: v.status ?? 'ServiceOperational', id: v.id as string };
}

export function serviceHealthPatch(body: unknown, type: EntityType): Record<string, unknown> {
  const { service, status } = serviceHealthChecks;
  return readProperties(body, type, { service, status }, ['id']);
}

const issueChecks: Record<string, Check> = {
  startDateTime: dateTime,
  endDateTime: dateTime,
  title: text,
  impactDescription: optionalText,
  classification: oneOf(CLASSIFICATION),
  origin: oneOf(ORIGIN),
  status: oneOf(SERVICE_HEALTH_STATUS),
  feature: optionalText,
  featureGroup: optionalText,
  isResolved: boolean,
  details: keyValues,
  posts,
};

/** A new issue's value (without id) under the service named `service`, stamped `now`. */
export function issueCreate(body: unknown, type: EntityType, service: string, now: string): Record<string, unknown> {
  const v = readProperties(body, type, issueChecks, ['id', 'service', 'lastModifiedDateTime']);
  requireAll(v, ['title']);
  return {
    startDateTime: v.startDateTime ?? now,
    endDateTime: v.endDateTime ?? null,
    lastModifiedDateTime: now,
    title: v.title,
    impactDescription: v.impactDescription ?? '',
    classification: v.classification ?? 'Advisory',
    origin: v.origin ?? 'Microsoft',
    status: v.status ?? 'Investigating',
    service,
    feature: v.feature ?? null,
    featureGroup: v.featureGroup ?? null,
    isResolved: v.isResolved ?? false,
    details: v.details ?? [],
    posts: v.posts ?? [],
  };
}
