import { describe, expect, it } from 'vitest';
import {
  diffHealth,
  diffMessages,
  healthSnapshot,
  needsNextPage,
  ServiceFilter,
} from '../../../../src/domains/enterprise/live/changes.js';

const service = (
  status: string,
  issues: Array<{ id: string; status: string; isResolved: boolean; lastModifiedDateTime: string }> = [],
) => ({
  id: 'Exchange',
  service: 'Exchange Online',
  status,
  issues,
});
const issue = (id: string, status: string, isResolved: boolean, lastModifiedDateTime: string) => ({
  id,
  status,
  isResolved,
  lastModifiedDateTime,
});
const message = (id: string, lastModifiedDateTime: string) => ({
  id,
  lastModifiedDateTime,
  services: ['Exchange Online'],
});
const AT = '2025-01-01T00:00:00Z';

describe('the health diff', () => {
  it('reports nothing when only the casing of a status changed', () => {
    const before = healthSnapshot([
      service('ServiceOperational', [issue('EX1', 'Investigating', false, '2025-01-01T00:00:00.10Z')]),
    ]);
    const after = healthSnapshot([
      service('serviceOperational', [issue('EX1', 'investigating', false, '2025-01-01T00:00:00.10Z')]),
    ]);
    expect(diffHealth(before, after, AT)).toEqual([]);
  });

  it('reports an issue that appeared already resolved as opened, then resolved', () => {
    const before = healthSnapshot([service('ServiceOperational')]);
    const after = healthSnapshot([
      service('ServiceOperational', [issue('EX2', 'ServiceRestored', true, '2025-01-01T00:00:00.10Z')]),
    ]);
    expect(diffHealth(before, after, AT).map((c) => [c.kind, c.issue?.id, c.previousStatus])).toEqual([
      ['ISSUE_OPENED', 'EX2', null],
      ['ISSUE_RESOLVED', 'EX2', null],
    ]);
  });

  it('reports a new service as a status change from nothing, its status change before its issues, and an issue touched without a status change as updated', () => {
    const before = healthSnapshot([
      service('ServiceOperational', [issue('EX1', 'Investigating', false, '2025-01-01T00:00:00.10Z')]),
    ]);
    const after = healthSnapshot([
      service('ServiceDegradation', [issue('EX1', 'Investigating', false, '2025-01-01T00:05:00.10Z')]),
      { id: 'Loop', service: 'Microsoft Loop', status: 'ServiceOperational', issues: [] },
    ]);
    expect(diffHealth(before, after, AT).map((c) => [c.kind, c.serviceHealth.id, c.previousStatus])).toEqual([
      ['STATUS_CHANGED', 'Exchange', 'ServiceOperational'],
      ['ISSUE_UPDATED', 'Exchange', 'Investigating'],
      ['STATUS_CHANGED', 'Loop', null],
    ]);
  });
});

describe('the messages diff', () => {
  it('reports nothing on the baseline, then new and modified posts oldest first, and a post at the watermark only once', () => {
    const base = diffMessages(undefined, [
      message('MC3', '2025-01-03T00:00:00Z'),
      message('MC2', '2025-01-02T00:00:00Z'),
    ]);
    expect(base.posts).toEqual([]);
    const next = diffMessages(base.window, [
      message('MC2', '2025-01-05T00:00:00Z'),
      message('MC4', '2025-01-04T00:00:00Z'),
      message('MC3', '2025-01-03T00:00:00Z'),
    ]);
    expect(next.posts.map((m) => m.id)).toEqual(['MC4', 'MC2']);
    const again = diffMessages(next.window, [
      message('MC2', '2025-01-05T00:00:00Z'),
      message('MC4', '2025-01-04T00:00:00Z'),
    ]);
    expect(again.posts).toEqual([]);
  });

  it('asks for the next page only while a whole page is newer than the previous poll', () => {
    const { window } = diffMessages(undefined, [message('MC3', '2025-01-03T00:00:00Z')]);
    expect(needsNextPage(undefined, [message('MC9', '2025-02-01T00:00:00Z')])).toBe(false);
    expect(
      needsNextPage(window, [message('MC9', '2025-02-01T00:00:00Z'), message('MC8', '2025-01-04T00:00:00Z')]),
    ).toBe(true);
    expect(
      needsNextPage(window, [message('MC9', '2025-02-01T00:00:00Z'), message('MC1', '2025-01-01T00:00:00Z')]),
    ).toBe(false);
  });
});

describe('the services filter', () => {
  it('matches ids and names without case, and posts by the ids of the services they name', () => {
    const filter = new ServiceFilter(['exchange', 'SharePoint Online']);
    const change = (id: string, name: string) => ({
      kind: 'STATUS_CHANGED' as const,
      serviceHealth: { id, service: name },
      previousStatus: null,
      detectedAt: AT,
    });
    expect(
      [
        change('Exchange', 'Exchange Online'),
        change('SharePoint', 'SharePoint Online'),
        change('Yammer', 'Viva Engage'),
      ].map((c) => filter.health(c)),
    ).toEqual([true, true, false]);
    expect(
      filter.message({
        message: { id: 'MC1', services: ['Exchange Online'] },
        serviceIds: ['Exchange'],
        detectedAt: AT,
      }),
    ).toBe(true);
    expect(
      filter.message({ message: { id: 'MC2', services: ['Viva Engage'] }, serviceIds: ['Yammer'], detectedAt: AT }),
    ).toBe(false);
  });
});
