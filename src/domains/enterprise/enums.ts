/**
 * Graph enum members arrive camelCase or PascalCase (docs/upstreams.md 1.3); the graph spells them SCREAMING_SNAKE.
 * Matching ignores case and underscores, and a member this gateway does not know becomes UNKNOWN_FUTURE_VALUE.
 */
const squash = (value: string) => (value.includes('_') ? value.replaceAll('_', '') : value).toLowerCase();

export const UNKNOWN = 'UNKNOWN_FUTURE_VALUE';

/**
 * Each enum's members by their squashed spelling, made on the first value of that enum: a value is looked up, not
 * compared with every member squashed again. Keyed by the member lists below (constants, so it holds one entry each).
 */
const bySquashed = new WeakMap<readonly string[], Map<string, string>>();

/** The graph member for an upstream value; null stays null. */
export function fromUpstreamEnum<T extends string>(members: readonly T[], value: string | null | undefined): T | null {
  if (value === null || value === undefined) return null;
  let table = bySquashed.get(members);
  if (!table) bySquashed.set(members, (table = new Map(members.map((m) => [squash(m), m]))));
  return (table.get(squash(value)) as T | undefined) ?? (UNKNOWN as T);
}

/** `START_DATE_TIME` → `startDateTime`: the upstream's spelling of a graph member or field name. */
export function toUpstreamName(member: string): string {
  return member.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

export const SERVICE_HEALTH_STATUS = [
  'SERVICE_OPERATIONAL',
  'INVESTIGATING',
  'RESTORING_SERVICE',
  'VERIFYING_SERVICE',
  'SERVICE_RESTORED',
  'POST_INCIDENT_REVIEW_PUBLISHED',
  'SERVICE_DEGRADATION',
  'SERVICE_INTERRUPTION',
  'EXTENDED_RECOVERY',
  'FALSE_POSITIVE',
  'INVESTIGATION_SUSPENDED',
  'RESOLVED',
  'MITIGATED_EXTERNAL',
  'MITIGATED',
  'RESOLVED_EXTERNAL',
  'CONFIRMED',
  'REPORTED',
  'UNKNOWN_FUTURE_VALUE',
] as const;
export const CLASSIFICATION = ['ADVISORY', 'INCIDENT', 'UNKNOWN_FUTURE_VALUE'] as const;
export const ORIGIN = ['MICROSOFT', 'THIRD_PARTY', 'CUSTOMER', 'UNKNOWN_FUTURE_VALUE'] as const;
export const POST_TYPE = ['REGULAR', 'QUICK', 'STRATEGIC', 'UNKNOWN_FUTURE_VALUE'] as const;
export const BODY_TYPE = ['HTML', 'TEXT', 'UNKNOWN_FUTURE_VALUE'] as const;
export const MESSAGE_CATEGORY = [
  'PREVENT_OR_FIX_ISSUE',
  'PLAN_FOR_CHANGE',
  'STAY_INFORMED',
  'UNKNOWN_FUTURE_VALUE',
] as const;
export const MESSAGE_SEVERITY = ['NORMAL', 'HIGH', 'CRITICAL', 'UNKNOWN_FUTURE_VALUE'] as const;
