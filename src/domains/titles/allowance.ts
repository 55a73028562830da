/**
 * The OMDb requests an operation was admitted for: the budget's estimate (pipeline/rules/upstreamBudget.ts), made
 * before execution with bounds for what it has not seen (estimate.ts: a series 8 seasons, a season 26 episodes).
 * The loader sends no more: a request past the allowance is refused at its field, so an operation's
 * `upstreamRequests` never passes its `upstreamRequestsEstimated` (retries aside) and what GATEWAY_MAX_UPSTREAM_REQUESTS
 * and a client's cost budget admitted is what runs. The answers it did fetch stay cached, so the same operation sent
 * again is estimated from what OMDb answered, and refused at admission if that is over the budget.
 */
import { OperationKey, operationValue, setOperationValue, type GatewayContext } from '../../context/request.js';
import { ErrorCode, GatewayError } from '../../errors/codes.js';

/**
 * What the estimate takes a series or season it has not seen yet to hold; what OMDb answered (`totalSeasons`, a
 * season's `Episodes`) replaces them once cached. They are bounds by enforcement, not by nature: a season OMDb lists
 * with more episodes (a daily show's) costs no more than the estimate admitted, because the loader keeps to the
 * allowance. 26 episodes is a full broadcast season (22 to 26), so most seasons need no second try.
 */
export const UNSEEN_SERIES_SEASONS = 8;
export const UNSEEN_SEASON_EPISODES = 26;

interface Allowance {
  readonly estimated: number;
  left: number;
}

const ALLOWANCE = new OperationKey<Allowance>('the OMDb requests the operation was admitted for');

/** Sets the operation's allowance: `estimated` requests to OMDb. */
export function allowOmdbRequests(ctx: GatewayContext, estimated: number): void {
  setOperationValue(ctx, ALLOWANCE, estimated === 0 ? NONE : { estimated, left: estimated });
}

/** No request allowed (every operation without OMDb fields, and one the cache answers): one object, never taken from. */
const NONE: Allowance = { estimated: 0, left: 0 };

/**
 * Takes one request from the allowance; the refusal when none is left. An operation admitted without an estimate
 * (none was made) has no allowance to keep to.
 */
export function takeOmdbRequest(ctx: GatewayContext): GatewayError | undefined {
  const allowance = operationValue(ctx, ALLOWANCE);
  if (!allowance) return undefined;
  if (allowance.left > 0) {
    allowance.left--;
    return undefined;
  }
  return new GatewayError(
    ErrorCode.QueryTooComplex,
    `This operation was admitted for ${allowance.estimated} OMDb requests and needs more here: a series or season it had not seen holds more than the estimate assumes (${UNSEEN_SERIES_SEASONS} seasons, ${UNSEEN_SEASON_EPISODES} episodes a season). What OMDb answered is cached now: send the operation again to have it estimated from those answers (and refused at once if that is over GATEWAY_MAX_UPSTREAM_REQUESTS), or select fewer episode details.`,
    { upstream: 'omdb', limit: 'upstreamRequestsEstimated', max: allowance.estimated },
  );
}
