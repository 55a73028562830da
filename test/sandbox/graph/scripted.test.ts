import { describe, expect, it } from 'vitest';
import { useSandbox } from '../../support/sandbox.js';

const s = useSandbox();

async function control(path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.sandbox.origin}/_sandbox/${path}`, {
    method: 'POST',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function graph(path: string): Promise<any> {
  const res = await fetch(`${s.sandbox.origin}/graph/v1.0/admin/serviceAnnouncement/${path}`, {
    headers: { authorization: 'Bearer sandbox' },
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe('POST /_sandbox/graph/incident', () => {
  it('opens an issue on the service and steps it through updated to resolved, changing the service status each time', async () => {
    const opened = await control('graph/incident', { service: 'Exchange Online', title: 'Mail delays' });
    expect(opened).toEqual({
      status: 200,
      body: {
        issueId: 'EX900001',
        serviceId: 'Exchange',
        step: 'opened',
        next: '/_sandbox/graph/incident/EX900001/next',
      },
    });
    const states: unknown[] = [];
    const read = async () => {
      const service = await graph(
        'healthOverviews/Exchange?$expand=issues($select=id,status,isResolved,posts,lastModifiedDateTime)',
      );
      const issue = service.issues.find((i: { id: string }) => i.id === 'EX900001');
      states.push([service.status, issue.status, issue.isResolved, issue.posts.length]);
      return issue.lastModifiedDateTime as string;
    };
    const times = [await read()];
    expect((await control('graph/incident/EX900001/next')).body.step).toBe('updated');
    times.push(await read());
    expect((await control('graph/incident/EX900001/next')).body).toMatchObject({ step: 'resolved', next: null });
    times.push(await read());
    expect(states).toEqual([
      ['ServiceDegradation', 'Investigating', false, 1],
      ['RestoringService', 'RestoringService', false, 2],
      ['ServiceOperational', 'ServiceRestored', true, 3],
    ]);
    expect(new Set(times).size).toBe(3);
    expect(await control('graph/incident/EX900001/next')).toEqual({
      status: 409,
      body: { error: 'incident EX900001 is already resolved' },
    });
  });

  it('refuses an unknown service, a bad interval and an unknown incident with a message naming the fix', async () => {
    expect((await control('graph/incident', { service: 'Nope' })).status).toBe(404);
    expect(await control('graph/incident', {})).toEqual({
      status: 400,
      body: { error: 'service must be a service id or name, e.g. "Exchange"' },
    });
    expect((await control('graph/incident', { service: 'Exchange', intervalMs: -5 })).body.error).toMatch(
      /^intervalMs must be a whole number/,
    );
    expect((await control('graph/incident/EX1/next')).status).toBe(404);
  });
});

describe('POST /_sandbox/graph/messages', () => {
  it('posts a new message center post and updates it, each time modified now', async () => {
    const posted = await control('graph/messages', {
      title: 'Teams: new meeting recap',
      services: ['Microsoft Teams'],
      severity: 'high',
    });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({
      id: 'MC900001',
      title: 'Teams: new meeting recap',
      services: ['Microsoft Teams'],
      severity: 'High',
      category: 'StayInformed',
    });
    const newest = await graph('messages?$orderby=lastModifiedDateTime desc&$top=1&$select=id,title');
    expect(newest.value).toEqual([
      { '@odata.etag': expect.any(String), id: 'MC900001', title: 'Teams: new meeting recap' },
    ]);

    const updated = await control('graph/messages', { id: 'MC900001', title: '(Updated) Teams: new meeting recap' });
    expect(updated.body.lastModifiedDateTime > posted.body.lastModifiedDateTime).toBe(true);
    expect(updated.body).toMatchObject({ title: '(Updated) Teams: new meeting recap', services: ['Microsoft Teams'] });
  });

  it('refuses a post without title or services, and an unknown id', async () => {
    expect((await control('graph/messages', { title: 'x' })).body.error).toMatch(/needs title and services/);
    expect((await control('graph/messages', { title: 'x', services: ['A'], severity: 'urgent' })).body.error).toBe(
      'severity must be one of Normal, High, Critical, UnknownFutureValue',
    );
    expect((await control('graph/messages', { id: 'MC1', title: 'x' })).status).toBe(404);
  });
});
