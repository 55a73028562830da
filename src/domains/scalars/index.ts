import type { Resolvers } from '../../generated/resolvers.js';
import type { Domain } from '../domain.js';
import { DateScalar } from './date.js';
import { DateTimeScalar } from './dateTime.js';

/** The scalars of `schema/common.graphql`, served with any set of domains. */
export const scalarResolvers: Resolvers = {
  DateTime: DateTimeScalar,
  Date: DateScalar,
};

/** Not a domain of GATEWAY_DOMAINS: the scalars every gateway serves, whatever domains it serves. */
export const scalars: Domain = { resolvers: scalarResolvers };
