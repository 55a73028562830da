import type { Resolvers } from '../../generated/resolvers.js';
import { DateScalar } from './date.js';
import { DateTimeScalar } from './dateTime.js';

/** The scalars of `schema/common.graphql`, served with any set of domains. */
export const scalarResolvers: Resolvers = {
  DateTime: DateTimeScalar,
  Date: DateScalar,
};
