/**
 * The upstream requests one operation sent: what `extensions.cost.upstreamRequests` reports and a client's cost
 * budget is charged for (pipeline/rules/demandControl.ts). The HTTP layer tells it of every request it sends for the
 * operation, retries included, as it sends it; a request shared with another operation's (an identical GET in flight)
 * counts for the operation that started it, and an answer from a cache counts for none.
 */
export class UpstreamTally {
  /** Requests sent so far, every upstream together. */
  total = 0;
  /**
   * Cost of work the gateway does itself for the operation, beside its requests: an uploaded file's bytes (1 per MiB
   * started, chat documents' `uploadChatDocument`). Demand control adds it to the actual cost.
   */
  work = 0;
  /** Told of each request as it is sent (a subscription's budget is charged as it goes). */
  onSent: ((upstream: string) => void) | undefined = undefined;

  sent(upstream: string): void {
    this.total++;
    this.onSent?.(upstream);
  }
}
