import type { Dispatcher } from 'undici';
import { startUpstreamSpan, type UpstreamSpan } from '../../observability/tracing.js';
import { ForwardingHandler, type UpstreamDispatchOptions, type ResponseHeaders } from './dispatch.js';
import type { RetryRequest } from './retried.js';

/**
 * One client span per request with all its attempts (outside the retry interceptor, so `http.request.resend_count`
 * counts the retries), its context propagated in the request headers; ended when the answer's body is done.
 * Nothing is built when no operation is traced.
 */
export function traced(upstream: string): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const o = opts as UpstreamDispatchOptions & { retry?: RetryRequest };
    const span = startUpstreamSpan(upstream, o.method, o.url, o.traceAttributes);
    if (!span) return dispatch(opts, handler);
    return dispatch(
      { ...opts, headers: { ...(opts.headers as Record<string, string>), ...span.headers } },
      new Traced(handler, span, o),
    );
  };
}

class Traced extends ForwardingHandler {
  private status: number | undefined;

  constructor(
    next: Dispatcher.DispatchHandler,
    private readonly span: UpstreamSpan,
    private readonly opts: { retry?: RetryRequest },
  ) {
    super(next);
  }

  override onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: ResponseHeaders,
    message?: string,
  ): void {
    this.status = status;
    super.onResponseStart(controller, status, headers, message);
  }

  override onResponseEnd(controller: Dispatcher.DispatchController, trailers: ResponseHeaders): void {
    this.span.end({ status: this.status!, attempts: this.opts.retry?.attempts ?? 1 });
    super.onResponseEnd(controller, trailers);
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    // A body that broke off after the headers still had its status; no answer at all fails the span.
    if (this.status === undefined) this.span.fail(error);
    else this.span.end({ status: this.status, attempts: this.opts.retry?.attempts ?? 1 });
    super.onResponseError(controller, error);
  }
}
