import type { ControlRequest, ControlResponse } from '../types.js';
import { SERVICE_HEALTH_STATUS, MESSAGE_CATEGORY, MESSAGE_SEVERITY, enumMember, type Row } from './model.js';
import type { GraphStore } from './store.js';

/**
 * Changes made while the sandbox runs, for live-health demos and tests: Graph itself has no write API for issues or
 * message center posts, so these come through the control API (`/_sandbox/graph/...`) instead.
 *
 * An incident goes through three steps, each changing the issue and the service's status:
 * opened (Investigating, service ServiceDegradation) → updated (RestoringService, a new post) → resolved
 * (ServiceRestored, isResolved, service ServiceOperational). Steps advance on `POST …/incident/{id}/next`, or by
 * themselves every `intervalMs` when the incident was opened with one.
 */
export class ScriptedChanges {
  private readonly incidents = new Map<string, { service: Row; step: number; timer?: NodeJS.Timeout }>();

  constructor(private readonly store: GraphStore) {}

  /** Answers `/_sandbox/graph/...` control routes; undefined when the route is not one of them. */
  control(req: ControlRequest): ControlResponse | undefined {
    const route = `${req.method} ${req.path}`;
    if (route === 'POST /incident') return this.open(req);
    const next = /^POST \/incident\/([^/]+)\/next$/.exec(route);
    if (next) return this.next(decodeURIComponent(next[1]), req.now());
    if (route === 'POST /messages') return this.post(req);
    return undefined;
  }

  /** Stops incident timers; the store is reset by its owner. */
  reset(): void {
    for (const incident of this.incidents.values()) clearTimeout(incident.timer);
    this.incidents.clear();
  }

  private open(req: ControlRequest): ControlResponse {
    const body = (req.body ?? {}) as { service?: unknown; title?: unknown; intervalMs?: unknown };
    if (typeof body.service !== 'string') return bad('service must be a service id or name, e.g. "Exchange"');
    const service = this.store.service(body.service);
    if (!service)
      return {
        status: 404,
        body: {
          error: `no service ${JSON.stringify(body.service)}; GET /graph/v1.0/admin/serviceAnnouncement/healthOverviews lists them`,
        },
      };
    if (body.title !== undefined && (typeof body.title !== 'string' || !body.title.trim()))
      return bad('title must be a non-empty string');
    const interval = body.intervalMs;
    if (
      interval !== undefined &&
      (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1 || interval > 3_600_000)
    ) {
      return bad(
        'intervalMs must be a whole number of milliseconds from 1 to 3600000, or left out to step on POST /_sandbox/graph/incident/{id}/next',
      );
    }
    const now = req.now();
    const name = String(service.value.service);
    const at = this.store.stamp(now);
    const issue = this.store.addIssue(service, {
      startDateTime: at,
      endDateTime: null,
      lastModifiedDateTime: at,
      title: (body.title as string | undefined) ?? `Users may be unable to access ${name}`,
      impactDescription: `Users may be unable to access ${name} or may experience delays.`,
      classification: 'Incident',
      origin: 'Microsoft',
      status: 'Investigating',
      service: name,
      feature: null,
      featureGroup: null,
      isResolved: false,
      details: [],
      posts: [post(at, `We're investigating reports that users are unable to access ${name}.`)],
    });
    this.setStatus(service, 'ServiceDegradation');
    const incident: { service: Row; step: number; timer?: NodeJS.Timeout } = { service, step: 0 };
    this.incidents.set(issue.id, incident);
    if (interval !== undefined) {
      const tick = () => {
        const r = this.next(issue.id, req.now());
        if (r.status === 200 && (r.body as { next: string | null }).next)
          incident.timer = setTimeout(tick, interval).unref();
      };
      incident.timer = setTimeout(tick, interval).unref();
    }
    return { status: 200, body: stepBody(issue, service, 0) };
  }

  private next(issueId: string, now: number): ControlResponse {
    const incident = this.incidents.get(issueId);
    const issue = this.store.issue(issueId);
    if (!incident || !issue)
      return {
        status: 404,
        body: { error: `no scripted incident ${JSON.stringify(issueId)}; open one with POST /_sandbox/graph/incident` },
      };
    if (incident.step >= 2) return { status: 409, body: { error: `incident ${issueId} is already resolved` } };
    const at = this.store.stamp(now);
    const name = String(incident.service.value.service);
    const posts = issue.value.posts as unknown[];
    incident.step++;
    if (incident.step === 1) {
      this.store.write(issue, {
        ...issue.value,
        status: 'RestoringService',
        lastModifiedDateTime: at,
        posts: [...posts, post(at, `We've identified the cause and are deploying a fix for ${name}.`)],
      });
      this.setStatus(incident.service, 'RestoringService');
    } else {
      this.store.write(issue, {
        ...issue.value,
        status: 'ServiceRestored',
        isResolved: true,
        endDateTime: at,
        lastModifiedDateTime: at,
        posts: [...posts, post(at, `Final status: the fix is deployed and ${name} is available again.`)],
      });
      this.setStatus(incident.service, 'ServiceOperational');
      clearTimeout(incident.timer);
    }
    return { status: 200, body: stepBody(issue, incident.service, incident.step) };
  }

  /** Posts a new message center post, or updates the one named by `id`; either way it is modified now. */
  private post(req: ControlRequest): ControlResponse {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const existing = typeof body.id === 'string' ? this.store.message(body.id) : undefined;
    if (body.id !== undefined && !existing)
      return { status: 404, body: { error: `no message ${JSON.stringify(body.id)}; leave id out to post a new one` } };
    const fields: Record<string, unknown> = {};
    const text = (name: string) => {
      if (body[name] === undefined) return undefined;
      if (typeof body[name] !== 'string' || !(body[name] as string).trim()) return `${name} must be a non-empty string`;
      fields[name] = body[name];
    };
    const member = (name: string, members: readonly string[]) => {
      if (body[name] === undefined) return undefined;
      const m = typeof body[name] === 'string' ? enumMember(members, body[name] as string) : undefined;
      if (!m) return `${name} must be one of ${members.join(', ')}`;
      fields[name] = m;
    };
    const strings = (name: string) => {
      if (body[name] === undefined) return undefined;
      const v = body[name];
      if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || !s))
        return `${name} must be an array of non-empty strings`;
      fields[name] = v;
    };
    const problem =
      text('title') ??
      member('category', MESSAGE_CATEGORY) ??
      member('severity', MESSAGE_SEVERITY) ??
      strings('services') ??
      strings('tags') ??
      (body.isMajorChange !== undefined && typeof body.isMajorChange !== 'boolean'
        ? 'isMajorChange must be true or false'
        : undefined) ??
      (body.content !== undefined && typeof body.content !== 'string' ? 'content must be a string of HTML' : undefined);
    if (problem) return bad(problem);
    if (typeof body.isMajorChange === 'boolean') fields.isMajorChange = body.isMajorChange;
    if (typeof body.content === 'string') fields.body = { contentType: 'Html', content: body.content };
    const at = this.store.stamp(req.now());
    if (existing) {
      this.store.write(existing, { ...existing.value, ...fields, lastModifiedDateTime: at });
      return { status: 200, body: existing.value };
    }
    if (!fields.title || !fields.services)
      return bad('a new message needs title and services (service names, e.g. ["Exchange Online"])');
    const row = this.store.addMessage({
      startDateTime: at,
      endDateTime: null,
      lastModifiedDateTime: at,
      category: 'StayInformed',
      severity: 'Normal',
      tags: [],
      isMajorChange: false,
      actionRequiredByDateTime: null,
      expiryDateTime: null,
      hasAttachments: false,
      viewPoint: null,
      details: [],
      body: { contentType: 'Html', content: `<p>${String(fields.title)}</p>` },
      ...fields,
    });
    return { status: 200, body: row.value };
  }

  private setStatus(service: Row, status: (typeof SERVICE_HEALTH_STATUS)[number]): void {
    this.store.write(service, { ...service.value, status });
  }
}

const STEPS = ['opened', 'updated', 'resolved'] as const;

function stepBody(issue: Row, service: Row, step: number) {
  return {
    issueId: issue.id,
    serviceId: service.id,
    step: STEPS[step],
    next: step < 2 ? `/_sandbox/graph/incident/${issue.id}/next` : null,
  };
}

function post(at: string, content: string) {
  return { createdDateTime: at, postType: 'Regular', description: { contentType: 'Html', content } };
}

const bad = (error: string): ControlResponse => ({ status: 400, body: { error } });
