import type { GraphQLSchema } from 'graphql';
import type { GatewayServices } from '../context/request.js';
import type { ExecuteTrusted } from './execute.js';
import type { TrustedOperations } from './operations.js';

/** The trusted operations of this gateway and the way to run one, for /mcp and for chat graph tools. */
export interface GraphToolset {
  schema: GraphQLSchema;
  operations: TrustedOperations;
  execute: ExecuteTrusted;
  /** Upstream requests one call of the operation can cause with its default variables, by upstream (the budget's view). */
  estimates: ReadonlyMap<string, Readonly<Record<string, number>>>;
}

const KEY = { key: 'trusted operations and their executor' };

/** Made once at start-up (the operations folder is read and validated then). */
export function provideGraphToolset(services: GatewayServices, toolset: GraphToolset): void {
  services.shared.set(KEY, toolset);
}

/** Undefined only in a gateway built without the /mcp endpoint (a test's bare services). */
export function graphToolset(services: GatewayServices): GraphToolset | undefined {
  return services.shared.get(KEY) as GraphToolset | undefined;
}
