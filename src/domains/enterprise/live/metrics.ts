import { Counter, Gauge, type Registry } from 'prom-client';

/** Live service health metrics, registered on the gateway's own registry (so `/metrics` shows them). */
export class LiveMetrics {
  readonly subscriptions: Gauge<'subscription'>;
  readonly polls: Counter<'feed' | 'outcome'>;
  readonly changes: Counter<'kind'>;

  constructor(registry: Registry) {
    this.subscriptions = new Gauge({
      name: 'gateway_live_subscriptions',
      help: 'Open live subscriptions on this replica, by subscription field',
      labelNames: ['subscription'],
      registers: [registry],
    });
    this.polls = new Counter({
      name: 'gateway_live_polls_total',
      help: 'Polls of Microsoft Graph for live subscriptions, by feed (health, messages) and outcome (ok, rate_limited, error)',
      labelNames: ['feed', 'outcome'],
      registers: [registry],
    });
    this.changes = new Counter({
      name: 'gateway_live_changes_total',
      help: 'Changes the poller detected and published, by kind (STATUS_CHANGED, ISSUE_OPENED, ISSUE_UPDATED, ISSUE_RESOLVED, MESSAGE_POSTED)',
      labelNames: ['kind'],
      registers: [registry],
    });
    for (const subscription of ['serviceHealthChanged', 'serviceMessagePosted'])
      this.subscriptions.set({ subscription }, 0);
  }
}
