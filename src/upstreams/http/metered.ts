import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { cancelledBy, ForwardingHandler, type UpstreamDispatchOptions, type ResponseHeaders } from './dispatch.js';

export interface MeteredOptions {
  upstream: string;
  metrics: GatewayMetrics;
  log: Logger;
  redact: (text: string) => string;
}

/**
 * Each attempt's status (`0` when no answer came) and time to its headers in the metrics, and a debug line with the
 * redacted URL. An attempt the caller (or the total timeout) cancelled says nothing of the upstream and is not counted.
 */
export function metered(options: MeteredOptions): Dispatcher.DispatcherComposeInterceptor {
  // The upstream's series, found once (not by a labels object per request).
  const series: Series = {
    ...options,
    duration: options.metrics.upstreamDuration.series(options.upstream),
    requests: (status) => options.metrics.upstreamRequests.series(options.upstream, status),
  };
  return (dispatch) => (opts, handler) => dispatch(opts, new Metered(handler, opts as UpstreamDispatchOptions, series));
}

interface Series extends MeteredOptions {
  duration: ReturnType<GatewayMetrics['upstreamDuration']['series']>;
  requests(status: string): ReturnType<GatewayMetrics['upstreamRequests']['series']>;
}

class Metered extends ForwardingHandler {
  private readonly started = performance.now();
  private done = false;

  constructor(
    next: Dispatcher.DispatchHandler,
    private readonly opts: UpstreamDispatchOptions,
    private readonly options: Series,
  ) {
    super(next);
  }

  override onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: ResponseHeaders,
    message?: string,
  ): void {
    this.record(status);
    super.onResponseStart(controller, status, headers, message);
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    if (!this.done && !cancelledBy(this.opts)) this.record('network');
    super.onResponseError(controller, error);
  }

  private record(status: number | 'network'): void {
    if (this.done) return;
    this.done = true;
    const { upstream, log, redact } = this.options;
    this.options.requests(status === 'network' ? '0' : String(status)).inc();
    this.options.duration.observe((performance.now() - this.started) / 1000);
    // Checked first: the arguments (a redacted URL) would otherwise be built for every request and dropped.
    if (log.isLevelEnabled('debug'))
      log.debug(
        {
          requestId: this.opts.requestId,
          upstream,
          method: this.opts.method,
          url: redact(this.opts.url),
          status,
          attempt: this.opts.attempt,
        },
        'upstream request',
      );
  }
}
