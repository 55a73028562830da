// The page's operations, each typed by hand beside its document (small enough not to need a code generator; see
// examples/typed-client for the client-preset way).
import type { TypedDocumentNode } from '@apollo/client';
import { gql } from '@apollo/client';

export type ServiceHealthStatus = string;

export interface ServiceRow {
  __typename?: 'ServiceHealth';
  id: string;
  service: string;
  status: ServiceHealthStatus;
}

export const HealthBoardQuery: TypedDocumentNode<
  { admin: { serviceAnnouncement: { healthOverviews: { nodes: ServiceRow[] } } } },
  Record<string, never>
> = gql`
  query HealthBoard {
    admin {
      serviceAnnouncement {
        healthOverviews(first: 100, orderBy: [{ field: SERVICE, direction: ASC }]) {
          nodes { id service status }
        }
      }
    }
  }
`;

export interface HealthChange {
  kind: 'STATUS_CHANGED' | 'ISSUE_OPENED' | 'ISSUE_UPDATED' | 'ISSUE_RESOLVED';
  detectedAt: string;
  previousStatus: ServiceHealthStatus | null;
  serviceHealth: ServiceRow;
  issue: { id: string; title: string | null; status: ServiceHealthStatus | null } | null;
}

/** Every change the gateway's poll sees; `serviceHealth { id status }` updates the board's row in the cache. */
export const HealthChangesSubscription: TypedDocumentNode<
  { serviceHealthChanged: HealthChange },
  Record<string, never>
> = gql`
  subscription HealthChanges {
    serviceHealthChanged {
      kind
      detectedAt
      previousStatus
      serviceHealth { id service status }
      issue { id title status }
    }
  }
`;

export interface TitleItem {
  imdbId: string;
  title: string;
  year: string | null;
  type: string;
  /** Deferred: absent until the title's own lookup arrives. */
  plot?: string | null;
  imdbRating?: number | null;
  ratings?: Array<{ source: string; value: string }>;
}

/** The search page comes first; each item's details need its own lookup, so they are deferred. */
export const SearchTitlesQuery: TypedDocumentNode<
  { searchTitles: { totalResults: number; items: Array<TitleItem | null> } | null },
  { query: string }
> = gql`
  query SearchTitles($query: String!) {
    searchTitles(query: $query) {
      totalResults
      items {
        imdbId
        title
        year
        type
        ... @defer(label: "details") {
          plot
          imdbRating
          ratings { source value }
        }
      }
    }
  }
`;

export interface ChatProviderRow {
  id: string;
  live: boolean;
  models: string[];
}

export const ChatProvidersQuery: TypedDocumentNode<{ chatProviders: ChatProviderRow[] }, Record<string, never>> = gql`
  query ChatProviders {
    chatProviders { id live models }
  }
`;

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatChunk {
  provider: string;
  model: string;
  delta: { content: string | null };
  finishReason: string | null;
  usage: ChatUsage | null;
  graphStep: { operation: string; errorCode: string | null } | null;
}

export interface ChatInput {
  provider: string;
  model: string;
  messages: Array<{ role: 'SYSTEM' | 'USER' | 'ASSISTANT'; content: string }>;
  graphTools?: string[];
  /** Ids of attached documents: their text goes into the prompt. */
  documents?: string[];
}

export interface ChatDocument {
  id: string;
  provider: string | null;
  fileName: string;
  bytes: number;
  tokens: number;
  status: 'READY' | 'UNAVAILABLE';
}

/** Sent as a GraphQL multipart request: the file rides in the `file` variable (see client.ts). */
export const UploadChatDocumentMutation: TypedDocumentNode<
  { uploadChatDocument: ChatDocument | null },
  { file: File; provider?: string | null }
> = gql`
  mutation UploadChatDocument($file: Upload!, $provider: ID) {
    uploadChatDocument(file: $file, provider: $provider) { id provider fileName bytes tokens status }
  }
`;

export const DeleteChatDocumentMutation: TypedDocumentNode<{ deleteChatDocument: boolean | null }, { id: string }> =
  gql`
  mutation DeleteChatDocument($id: ID!) {
    deleteChatDocument(id: $id)
  }
`;

export const ChatStreamSubscription: TypedDocumentNode<{ chatCompletionStream: ChatChunk }, { input: ChatInput }> = gql`
  subscription ChatStream($input: ChatCompletionInput!) {
    chatCompletionStream(input: $input) {
      provider
      model
      delta { content }
      finishReason
      usage { promptTokens completionTokens totalTokens }
      graphStep { operation errorCode }
    }
  }
`;

/** The default trusted operations (operations/mcp/) a chat model may call when "consult the graph" is on. */
export const graphToolNames = [
  'ServiceHealthOverview',
  'ServiceHealth',
  'RecentServiceIssues',
  'TitleLookup',
  'TitleSearch',
];
