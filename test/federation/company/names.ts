/** The names this project's entities are served under (SUBGRAPH_TYPE_PREFIX, SUBGRAPH_RENAMES), which a company's subgraph refers to. */
export interface OurNames {
  Title: string;
  ServiceHealth: string;
}

export const LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable"])';
