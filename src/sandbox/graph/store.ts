import { buildSeed, etagOf, type Seed } from './data.js';
import type { Row } from './model.js';

/**
 * The seed is the same for every store (a fixed PRNG seed) and never written: built once per process instead of once
 * per sandbox (~35 ms each, and the suite starts hundreds in its workers). Frozen, so a write in place would throw
 * rather than leak into the next store.
 */
let shared: Seed | undefined;
const seedOnce = (): Seed => (shared ??= deepFreeze(buildSeed()));

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (value instanceof Map)
    for (const [k, v] of value) {
      deepFreeze(k);
      deepFreeze(v);
    }
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

/** Mutable Graph state over the immutable seed; rows are copied on reset, values are replaced on write. */
export class GraphStore {
  private readonly seed: Seed = seedOnce();
  admin!: Row;
  announcement!: Row;
  services!: Row[];
  issues!: Row[];
  messages!: Row[];
  private servicesById!: Map<string, Row>;
  private issuesById!: Map<string, Row>;
  private messagesById!: Map<string, Row>;
  private owner!: Map<string, string>;
  /** Issues per service id, rebuilt lazily after a change. */
  private byService: Map<string, Row[]> | undefined;
  private revision = 0;
  private issueNumber = 0;
  private messageNumber = 0;
  private lastStamp = 0;

  constructor() {
    this.reset();
  }

  reset(): void {
    const copy = (rows: Row[]) => rows.map((r) => ({ ...r }));
    this.admin = { id: 'admin', etag: etagOf('admin', 0), value: {} };
    this.announcement = { id: 'serviceAnnouncement', etag: etagOf('serviceAnnouncement', 0), value: {} };
    this.services = copy(this.seed.services);
    this.issues = copy(this.seed.issues);
    this.messages = copy(this.seed.messages);
    this.servicesById = new Map(this.services.map((r) => [r.id, r]));
    this.issuesById = new Map(this.issues.map((r) => [r.id, r]));
    this.messagesById = new Map(this.messages.map((r) => [r.id, r]));
    this.owner = new Map(this.seed.owner);
    this.byService = undefined;
    this.revision = 0;
    this.issueNumber = 900_000;
    this.messageNumber = 900_000;
    this.lastStamp = 0;
  }

  /**
   * A `lastModifiedDateTime` for a write at `now`, in Graph's two-fraction-digit form and strictly later than the
   * previous one, so that two writes in the same 10 ms still read as two changes to a client comparing timestamps.
   */
  stamp(now: number): string {
    this.lastStamp = Math.max(Math.floor(now / 10) * 10, this.lastStamp + 10);
    return new Date(this.lastStamp).toISOString().replace(/(\.\d\d)\dZ$/, '$1Z');
  }

  /** A service by id, else by id or service name ignoring case (the docs address it by name). */
  service(key: string): Row | undefined {
    const exact = this.servicesById.get(key);
    if (exact) return exact;
    const lower = key.toLowerCase();
    return this.services.find((r) => r.id.toLowerCase() === lower || String(r.value.service).toLowerCase() === lower);
  }
  issue(id: string): Row | undefined {
    return this.issuesById.get(id);
  }
  message(id: string): Row | undefined {
    return this.messagesById.get(id);
  }
  issuesOf(serviceId: string): readonly Row[] {
    if (!this.byService) {
      this.byService = new Map();
      for (const r of this.issues) {
        const id = this.owner.get(r.id)!;
        const list = this.byService.get(id);
        if (list) list.push(r);
        else this.byService.set(id, [r]);
      }
    }
    return this.byService.get(serviceId) ?? [];
  }

  /** Replaces a row's value and gives it a new etag. */
  write(row: Row, value: Record<string, unknown>): void {
    row.value = value;
    row.etag = etagOf(row.id, ++this.revision);
  }

  addService(value: Record<string, unknown> & { id: string }): Row {
    const row: Row = { id: value.id, etag: etagOf(value.id, ++this.revision), value };
    this.services.push(row);
    this.servicesById.set(row.id, row);
    return row;
  }

  deleteService(row: Row): void {
    this.byService = undefined;
    this.services = this.services.filter((r) => r !== row);
    this.servicesById.delete(row.id);
    this.issues = this.issues.filter((r) => {
      if (this.owner.get(r.id) !== row.id) return true;
      this.issuesById.delete(r.id);
      this.owner.delete(r.id);
      return false;
    });
  }

  /** Adds an issue to a service with the next id of the service's prefix, e.g. `EX900001`. */
  addIssue(service: Row, value: Record<string, unknown>): Row {
    const prefix =
      this.seed.prefixes.get(service.id) ??
      (service.id
        .replace(/[^A-Za-z]/g, '')
        .slice(0, 2)
        .toUpperCase() ||
        'SH');
    const id = `${prefix}${++this.issueNumber}`;
    const row: Row = { id, etag: etagOf(id, ++this.revision), value: { ...value, id } };
    this.byService = undefined;
    this.issues.unshift(row);
    this.issuesById.set(id, row);
    this.owner.set(id, service.id);
    return row;
  }

  /** Adds a message center post with the next id, e.g. `MC900001`. */
  addMessage(value: Record<string, unknown>): Row {
    const id = `MC${++this.messageNumber}`;
    const row: Row = { id, etag: etagOf(id, ++this.revision), value: { ...value, id } };
    this.messages.unshift(row);
    this.messagesById.set(id, row);
    return row;
  }
}
