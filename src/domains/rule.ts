import type { DocumentNode, GraphQLError, OperationDefinitionNode } from 'graphql';
import type { GatewayContext } from '../context/request.js';

/** An operation as a domain's rule sees it at admission: parsed, validated, its variables coerced. */
export interface DomainOperation {
  readonly type: string;
  /** Aborted when the operation ends or its client leaves: a wait in line gives up on it. */
  readonly controller: AbortController;
  readonly context: GatewayContext;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly variables?: Record<string, unknown>;
}

/**
 * A pipeline rule a domain contributes: the admission stage of the pipeline's `PipelineRule` (pipeline/operation.ts),
 * declared here because domains sit below the pipeline. It runs after the upstream-request budget, whose estimate it
 * may read (`rememberedEstimate`), and before demand control.
 */
export interface DomainRule {
  readonly name: string;
  admit?(op: DomainOperation): GraphQLError | undefined | Promise<GraphQLError | undefined>;
  /**
   * Once every rule (the pipeline's caps and budgets included) admitted it: a wait in line for what it will hold (a
   * provider's connection). The pipeline's `waitTurn` stage.
   */
  waitTurn?(op: DomainOperation): GraphQLError | undefined | Promise<GraphQLError | undefined>;
  /** When the operation ends, whatever its outcome, once: what a rule held for it goes back. */
  finish?(op: Pick<DomainOperation, 'context'>): void;
}
