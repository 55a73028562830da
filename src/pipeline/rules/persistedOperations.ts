import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GraphQLError } from 'graphql';
import { ConfigError } from '../../config/env.js';
import { ErrorCode, ErrorReason } from '../../errors/codes.js';
import type { OperationPayload, PipelineRule } from '../operation.js';

/**
 * Only the manifest's operations run: a payload's id (or full text) becomes the listed document, and the id's
 * carriers (`documentId`, `extensions.persistedQuery`) are dropped so nothing downstream tries to resolve it again.
 */
export function usePersistedOperations({ manifest }: { manifest: PersistedOperations }): PipelineRule {
  return {
    name: 'persistedOperations',
    prepare(payload) {
      const extensions = typeof payload.extensions === 'string' ? safeJson(payload.extensions) : payload.extensions;
      const resolved = manifest.resolve({ ...payload, extensions } as never);
      if (typeof resolved !== 'string') return resolved;
      const { documentId: _id, extensions: _ext, ...rest } = payload;
      const { persistedQuery: _pq, ...otherExtensions } = (extensions ?? {}) as Record<string, unknown>;
      const result: OperationPayload = { ...rest, query: resolved };
      if (Object.keys(otherExtensions).length) result.extensions = otherExtensions;
      return result;
    },
  };
}

function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Trusted documents (PERSISTED_OPERATIONS_FILE): only operations listed in the manifest run. Clients send the
 * APQ-style `extensions.persistedQuery.sha256Hash` (or `documentId`), or the full text of a listed operation.
 * Accepts Apollo's persisted-query manifest (`{ format, operations: [{ id, body }] }`) and a plain `{ hash: text }` map
 * (GraphQL Code Generator's `persisted-documents.json`).
 */
export class PersistedOperations {
  private readonly byHash = new Map<string, string>();

  constructor(manifest: unknown) {
    const m = manifest as { operations?: Array<{ id?: string; body?: string }> } | Record<string, string>;
    const entries: Array<[string, string]> = Array.isArray((m as { operations?: unknown }).operations)
      ? ((m as { operations: Array<{ id?: string; body?: string }> }).operations.map((o) => [
          o.id ?? '',
          o.body ?? '',
        ]) as Array<[string, string]>)
      : Object.entries(m as Record<string, string>);
    for (const [id, body] of entries) {
      if (typeof body !== 'string' || !body) continue;
      this.byHash.set(id, body);
      this.byHash.set(sha256(body), body);
    }
  }

  static load(path: string): PersistedOperations {
    const fix = "set it to the path of Apollo's persisted-query manifest or of a { hash: query } JSON map";
    let operations: PersistedOperations;
    try {
      operations = new PersistedOperations(JSON.parse(readFileSync(path, 'utf8')));
    } catch (error) {
      throw new ConfigError(
        'PERSISTED_OPERATIONS_FILE',
        `cannot read a JSON manifest at ${JSON.stringify(path)} (${(error as Error).message}); ${fix}`,
      );
    }
    // An empty manifest would refuse every operation: most likely the wrong file.
    if (!operations.size)
      throw new ConfigError('PERSISTED_OPERATIONS_FILE', `${JSON.stringify(path)} holds no operations; ${fix}`);
    return operations;
  }

  get size(): number {
    return this.byHash.size;
  }

  /**
   * Lists a document the gateway trusts itself: the trusted operations (MCP_OPERATIONS), validated at start-up and
   * run by /mcp tools and chat graph tools, are persisted operations by definition. Their full text is accepted.
   */
  allow(body: string): void {
    this.byHash.set(sha256(body), body);
  }

  /** The document to run for a request body, or an error naming what is missing. */
  resolve(body: {
    query?: unknown;
    documentId?: unknown;
    extensions?: { persistedQuery?: { sha256Hash?: unknown } };
  }): string | GraphQLError {
    const id = body.extensions?.persistedQuery?.sha256Hash ?? body.documentId;
    if (typeof id === 'string') {
      return this.byHash.get(id) ?? notAllowed(`No persisted operation has the id ${JSON.stringify(id.slice(0, 80))}.`);
    }
    if (typeof body.query === 'string') {
      return (
        this.byHash.get(sha256(body.query)) ??
        notAllowed('This gateway runs only persisted operations, and this document is not one of them.')
      );
    }
    return notAllowed('Send a persisted operation id in extensions.persistedQuery.sha256Hash or documentId.');
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function notAllowed(message: string): GraphQLError {
  return new GraphQLError(`${message} Add it to the manifest at build time (PERSISTED_OPERATIONS_FILE).`, {
    extensions: { code: ErrorCode.Forbidden, reason: ErrorReason.PersistedQueryNotFound, http: { status: 403 } },
  });
}
