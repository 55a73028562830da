import type { EmulatorContext } from '../types.js';
import { badRequest, GraphError, GraphErrorCode } from './errors.js';
import {
  adminType,
  serviceAnnouncementType,
  serviceHealthIssueType,
  serviceHealthType,
  serviceUpdateMessageType,
  type EntityType,
  type Row,
} from './model.js';
import { parseQuery, type QueryOptions } from './odata/options.js';
import { contextClause, renderCollection, renderEntity, type Navigator } from './odata/render.js';
import type { GraphResponse } from './response.js';
import type { GraphStore } from './store.js';
import { checkIfMatch, issueCreate, openTypePatch, serviceHealthCreate, serviceHealthPatch } from './writes.js';

/** One Graph call below the version segment, from the socket or from a `$batch` item. */
export interface GraphRequest {
  method: string;
  /** `v1.0` or `beta`. */
  version: string;
  /** Path below the version as received (still percent-encoded), e.g. `/admin/serviceAnnouncement`. */
  path: string;
  rawQuery: string;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body, undefined when there was none. */
  body: unknown;
}

const ANNOUNCEMENT = 'admin/serviceAnnouncement';
const DEFAULT_PAGE_SIZE = 100;
/** Write responses render the whole entity. */
const NO_OPTIONS: QueryOptions = { count: false, raw: [] };
const MAX_PAGE_SIZE = 1000;

/** Where the response's URLs point. */
interface Site {
  /** `http://host/graph/v1.0` */
  root: string;
  /** `http://host/graph/v1.0/$metadata#` */
  context: string;
  nav: Navigator;
}

const unknownSegment = (segment: string) => badRequest(`Resource not found for the segment '${segment}'.`);
const methodNotAllowed = () =>
  new GraphError(405, GraphErrorCode.MethodNotAllowed, 'Specified HTTP method is not allowed for the request target.');
const quoteKey = (id: string) => `'${id.replace(/'/g, "''")}'`;

function allow(req: GraphRequest, ...methods: string[]): void {
  if (!methods.includes(req.method)) throw methodNotAllowed();
}

function preferences(req: GraphRequest): { maxPageSize?: number; representation: boolean } {
  const header = req.headers.prefer ?? '';
  const m = /odata\.maxpagesize\s*=\s*"?(\d+)"?/i.exec(header);
  const n = m ? Number(m[1]) : NaN;
  return {
    maxPageSize: n >= 1 ? Math.min(n, MAX_PAGE_SIZE) : undefined,
    representation: /return\s*=\s*representation/i.test(header),
  };
}

function navigator(store: GraphStore, root: string): Navigator {
  return {
    children(row, type, nav) {
      if (type === adminType) return store.announcement;
      if (type === serviceAnnouncementType)
        return nav === 'healthOverviews' ? store.services : nav === 'issues' ? store.issues : store.messages;
      return store.issuesOf(row.id);
    },
    link(row, type, nav) {
      if (type === serviceHealthType)
        return `${root}/${ANNOUNCEMENT}/healthOverviews/${encodeURIComponent(row.id)}/issues`;
      return type === serviceAnnouncementType ? `${root}/${ANNOUNCEMENT}/${nav}` : `${root}/${ANNOUNCEMENT}`;
    },
  };
}

function entityBody(
  row: Row,
  type: EntityType,
  options: QueryOptions,
  context: string,
  suffix: string,
  site: Site,
): Record<string, unknown> {
  return {
    '@odata.context': `${site.context}${context}${contextClause(type, options)}${suffix}`,
    ...renderEntity(row, type, options, site.nav),
  };
}

function getEntity(
  req: GraphRequest,
  row: Row,
  type: EntityType,
  context: string,
  site: Site,
  suffix = '/$entity',
): GraphResponse {
  return {
    status: 200,
    headers: {},
    body: entityBody(row, type, parseQuery(req.rawQuery, type, 'entity'), context, suffix, site),
  };
}

function getCollection(
  req: GraphRequest,
  rows: readonly Row[],
  type: EntityType,
  context: string,
  site: Site,
): GraphResponse {
  const { maxPageSize } = preferences(req);
  const options = parseQuery(req.rawQuery, type, 'collection');
  const body = renderCollection(
    rows,
    type,
    options,
    { context: site.context + context, link: site.root + req.path, pageSize: maxPageSize ?? DEFAULT_PAGE_SIZE },
    site.nav,
  );
  return {
    status: 200,
    headers: maxPageSize ? { 'preference-applied': `odata.maxpagesize=${maxPageSize}` } : {},
    body,
  };
}

/** `/collection/$count`: the number of matching entities as a bare integer. */
function countCollection(req: GraphRequest, rows: readonly Row[], type: EntityType): GraphResponse {
  allow(req, 'GET');
  const { filter } = parseQuery(req.rawQuery, type, 'collection');
  return {
    status: 200,
    headers: { 'content-type': 'text/plain;charset=utf-8' },
    body: filter ? rows.filter((r) => filter(r.value)).length : rows.length,
  };
}

/** 204 after a write, or 200 with the entity when the client sent `Prefer: return=representation`. */
function written(
  req: GraphRequest,
  row: Row,
  type: EntityType,
  context: string,
  suffix: string,
  site: Site,
): GraphResponse {
  if (!preferences(req).representation) return { status: 204, headers: {} };
  return {
    status: 200,
    headers: { 'preference-applied': 'return=representation' },
    body: entityBody(row, type, NO_OPTIONS, context, suffix, site),
  };
}

function singleton(
  req: GraphRequest,
  store: GraphStore,
  row: Row,
  type: EntityType,
  context: string,
  site: Site,
  deletable: boolean,
): GraphResponse {
  allow(req, 'GET', 'PATCH', ...(deletable ? ['DELETE'] : []));
  if (req.method === 'GET') return getEntity(req, row, type, context, site, '');
  checkIfMatch(req.headers['if-match'], row.etag);
  if (req.method === 'DELETE') {
    store.write(row, {});
    return { status: 204, headers: {} };
  }
  store.write(row, { ...row.value, ...openTypePatch(req.body, type) });
  return written(req, row, type, context, '', site);
}

function healthOverviews(req: GraphRequest, store: GraphStore, rest: string[], site: Site, now: number): GraphResponse {
  const collection = `${ANNOUNCEMENT}/healthOverviews`;
  if (rest.length === 0) {
    allow(req, 'GET', 'POST');
    if (req.method === 'GET') return getCollection(req, store.services, serviceHealthType, collection, site);
    const value = serviceHealthCreate(req.body, serviceHealthType);
    if (store.service(value.id)?.id === value.id) {
      throw new GraphError(409, GraphErrorCode.Conflict, `A serviceHealth with id '${value.id}' already exists.`);
    }
    const row = store.addService(value);
    return {
      status: 201,
      headers: { location: `${site.root}/${collection}/${encodeURIComponent(row.id)}` },
      body: entityBody(row, serviceHealthType, NO_OPTIONS, collection, '/$entity', site),
    };
  }
  const [key, nav, ...beyond] = rest;
  if (key === '$count' && nav === undefined) return countCollection(req, store.services, serviceHealthType);
  if (nav?.toLowerCase() === 'issues' && beyond.length === 1 && beyond[0] === '$count') {
    const service = store.service(key);
    if (service) return countCollection(req, store.issuesOf(service.id), serviceHealthIssueType);
  }
  if (beyond.length || (nav !== undefined && nav.toLowerCase() !== 'issues')) throw unknownSegment(beyond[0] ?? nav);
  allow(req, ...(nav === undefined ? ['GET', 'PATCH', 'DELETE'] : ['GET', 'POST']));
  const service = store.service(key);
  if (!service) throw new GraphError(404, GraphErrorCode.ItemNotFound, `The serviceHealth '${key}' was not found.`);

  if (nav !== undefined) {
    const issues = `${collection}(${quoteKey(service.id)})/issues`;
    if (req.method === 'GET')
      return getCollection(req, store.issuesOf(service.id), serviceHealthIssueType, issues, site);
    const row = store.addIssue(
      service,
      issueCreate(req.body, serviceHealthIssueType, String(service.value.service), new Date(now).toISOString()),
    );
    return {
      status: 201,
      headers: { location: `${site.root}/${ANNOUNCEMENT}/issues/${row.id}` },
      body: entityBody(row, serviceHealthIssueType, NO_OPTIONS, issues, '/$entity', site),
    };
  }
  if (req.method === 'GET') return getEntity(req, service, serviceHealthType, collection, site);
  checkIfMatch(req.headers['if-match'], service.etag);
  if (req.method === 'DELETE') {
    store.deleteService(service);
    return { status: 204, headers: {} };
  }
  store.write(service, { ...service.value, ...serviceHealthPatch(req.body, serviceHealthType) });
  return written(req, service, serviceHealthType, collection, '/$entity', site);
}

function readOnly(
  req: GraphRequest,
  rest: string[],
  rows: readonly Row[],
  find: (id: string) => Row | undefined,
  type: EntityType,
  collection: string,
  site: Site,
): GraphResponse {
  if (rest.length > 1) throw unknownSegment(rest[1]);
  if (rest[0] === '$count') return countCollection(req, rows, type);
  allow(req, 'GET');
  if (rest.length === 0) return getCollection(req, rows, type, collection, site);
  const row = find(rest[0]);
  if (!row)
    throw new GraphError(
      404,
      GraphErrorCode.ItemNotFound,
      `The ${type.name.slice('microsoft.graph.'.length)} '${rest[0]}' was not found.`,
    );
  return getEntity(req, row, type, collection, site);
}

function segmentsOf(path: string): string[] {
  const parts = path.split('/').filter((s, i, all) => s !== '' || (i > 0 && i < all.length - 1));
  try {
    return parts.map(decodeURIComponent);
  } catch {
    throw badRequest(`The path '${path}' contains malformed percent-encoding.`);
  }
}

/** Serves one Graph call against the store. Throws GraphError for every client error. */
export function serve(req: GraphRequest, store: GraphStore, ctx: EmulatorContext): GraphResponse {
  const root = `${ctx.baseUrl}/${req.version}`;
  const site: Site = { root, context: `${root}/$metadata#`, nav: navigator(store, root) };
  const [admin, announcement, collection, ...rest] = segmentsOf(req.path);
  if (admin?.toLowerCase() !== 'admin') throw unknownSegment(admin ?? '');
  if (announcement === undefined) return singleton(req, store, store.admin, adminType, 'admin', site, false);
  if (announcement.toLowerCase() !== 'serviceannouncement') throw unknownSegment(announcement);
  if (collection === undefined)
    return singleton(req, store, store.announcement, serviceAnnouncementType, ANNOUNCEMENT, site, true);
  switch (collection.toLowerCase()) {
    case 'healthoverviews':
      return healthOverviews(req, store, rest, site, ctx.now());
    case 'issues':
      return readOnly(
        req,
        rest,
        store.issues,
        (id) => store.issue(id),
        serviceHealthIssueType,
        `${ANNOUNCEMENT}/issues`,
        site,
      );
    case 'messages':
      return readOnly(
        req,
        rest,
        store.messages,
        (id) => store.message(id),
        serviceUpdateMessageType,
        `${ANNOUNCEMENT}/messages`,
        site,
      );
    default:
      throw unknownSegment(collection);
  }
}
