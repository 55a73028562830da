import type { Dispatcher } from 'undici';
import type { UpstreamDispatchOptions } from './dispatch.js';

/**
 * Tells the operation's tally of each attempt as it goes out (retries are requests the operation pays for, and a
 * subscription's budget is charged as it goes). Below the retry loop, so that every attempt passes it once.
 */
export function counted(upstream: string): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    (opts as UpstreamDispatchOptions).tally?.sent(upstream);
    return dispatch(opts, handler);
  };
}
