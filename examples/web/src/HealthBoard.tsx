import { useQuery, useSubscription } from '@apollo/client/react';
import { useState } from 'react';
import { HealthBoardQuery, HealthChangesSubscription, type HealthChange } from './operations.js';

const recentChanges = 8;

/** Every service's status, kept current by `serviceHealthChanged`: the change's `serviceHealth` updates the row in the cache. */
export function HealthBoard() {
  const { data, error, loading } = useQuery(HealthBoardQuery);
  const [changes, setChanges] = useState<HealthChange[]>([]);
  const live = useSubscription(HealthChangesSubscription, {
    onData: ({ data: change }) => {
      const next = change.data?.serviceHealthChanged;
      if (next) setChanges((previous) => [next, ...previous].slice(0, recentChanges));
    },
  });
  const services = data?.admin.serviceAnnouncement.healthOverviews.nodes ?? [];

  return (
    <section className="panel" aria-labelledby="health-heading">
      <h2 id="health-heading">Service health</h2>
      {loading && <p className="muted">Loading services…</p>}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {live.error && (
        <p className="error" role="alert">
          Live updates stopped: {live.error.message}
        </p>
      )}
      <h3>Live changes</h3>
      {changes.length === 0 && <p className="muted">Waiting for the next change…</p>}
      <ol className="changes" data-testid="changes">
        {changes.map((change) => (
          <li key={`${change.detectedAt}-${change.kind}-${change.issue?.id ?? change.serviceHealth.id}`}>
            <time>{new Date(change.detectedAt).toLocaleTimeString()}</time>{' '}
            <strong>{change.serviceHealth.service}</strong> {describe(change)}
          </li>
        ))}
      </ol>
      <h3>All services</h3>
      <div className="board-scroll">
        <table className="board">
          <tbody>
            {services.map((row) => (
              <tr key={row.id} data-service={row.id}>
                <td>{row.service}</td>
                <td>
                  <span className={`status ${statusTone(row.status)}`} data-testid="status" data-status={row.status}>
                    {label(row.status)}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function describe(change: HealthChange): string {
  switch (change.kind) {
    case 'STATUS_CHANGED':
      return `${change.previousStatus ? label(change.previousStatus) : 'new'} → ${label(change.serviceHealth.status)}`;
    case 'ISSUE_OPENED':
      return `issue opened: ${change.issue?.title ?? change.issue?.id}`;
    case 'ISSUE_UPDATED':
      return `issue ${change.previousStatus ? label(change.previousStatus) : ''} → ${change.issue?.status ? label(change.issue.status) : ''}`;
    case 'ISSUE_RESOLVED':
      return `issue resolved: ${change.issue?.title ?? change.issue?.id}`;
  }
}

/** `SERVICE_DEGRADATION` → `Service degradation`. */
function label(status: string): string {
  const words = status.toLowerCase().replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function statusTone(status: string): string {
  if (status === 'SERVICE_OPERATIONAL' || status === 'SERVICE_RESTORED') return 'ok';
  if (status === 'SERVICE_INTERRUPTION') return 'down';
  return 'warn';
}
