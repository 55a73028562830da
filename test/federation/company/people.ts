/**
 * A company's people directory, as such subgraphs are commonly written: Relay connections with the full `PageInfo`
 * (`@shareable`), a job `Title` entity keyed by `id`, and an `OrderDirection` with a value of its own, which its
 * connections also report (an enum used as input and output must agree in every subgraph).
 */
import type { CompanySubgraph } from './subgraph.js';
import { LINK, type OurNames } from './names.js';

export const JOB_TITLES = [
  { id: 'jt1', name: 'Engineer', level: 2 },
  { id: 'jt2', name: 'Staff Engineer', level: 4 },
  { id: 'jt3', name: 'Support Lead', level: 3 },
];

export const EMPLOYEES = [
  { id: 'e1', name: 'Ada', titleId: 'jt2', favoriteMovie: 'tt0133093' },
  { id: 'e2', name: 'Grace', titleId: 'jt1', favoriteMovie: 'tt0078346' },
  { id: 'e3', name: 'Linus', titleId: 'jt3', favoriteMovie: 'tt0468569' },
  { id: 'e4', name: 'Margaret', titleId: 'jt2', favoriteMovie: 'tt0372784' },
  { id: 'e5', name: 'Ken', titleId: 'jt1', favoriteMovie: 'tt0078346' },
];

type Employee = (typeof EMPLOYEES)[number];

/**
 * The people subgraph; with `ours`, as it is once this project's subgraph is in the supergraph: each employee's
 * favourite movie is a reference to this project's title entity, under the name it is served as.
 */
export function people(ours?: OurNames): CompanySubgraph {
  const movie = ours
    ? `
  extend type Employee { "A reference to the movie entity of the ops subgraph." favoriteMovie: ${ours.Title} }
  type ${ours.Title} @key(fields: "imdbId", resolvable: false) { imdbId: ID! }`
    : '';
  const sdl = `${LINK}
  type Query {
    employees(first: Int = 10, after: String, order: OrderDirection = ASC): EmployeeConnection!
    jobTitle(id: ID!): Title
  }
  "How a list is ordered; UNSORTED keeps the directory's own order."
  enum OrderDirection { ASC DESC UNSORTED }
  "A job title."
  type Title @key(fields: "id") { id: ID! name: String! level: Int! holders: [Employee!]! }
  type Employee @key(fields: "id") { id: ID! name: String! title: Title! }
  type EmployeeEdge { cursor: String! node: Employee! }
  type EmployeeConnection { edges: [EmployeeEdge!]! pageInfo: PageInfo! order: OrderDirection! }
  type PageInfo @shareable { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
  ${movie}`;
  const titleOf = (id: string) => JOB_TITLES.find((t) => t.id === id) ?? null;
  return {
    name: 'people',
    sdl,
    resolvers: {
      Query: {
        employees: (
          _: unknown,
          { first, after, order }: { first: number; after?: string; order: 'ASC' | 'DESC' | 'UNSORTED' },
        ) => {
          const sorted =
            order === 'UNSORTED'
              ? [...EMPLOYEES]
              : [...EMPLOYEES].sort((a, b) => a.name.localeCompare(b.name) * (order === 'DESC' ? -1 : 1));
          const start = after ? Number(after.slice(1)) + 1 : 0;
          const page = sorted.slice(start, start + first);
          const edges = page.map((node, i) => ({ cursor: `c${start + i}`, node }));
          return {
            edges,
            order,
            pageInfo: {
              hasNextPage: start + first < sorted.length,
              hasPreviousPage: start > 0,
              startCursor: edges[0]?.cursor ?? null,
              endCursor: edges.at(-1)?.cursor ?? null,
            },
          };
        },
        jobTitle: (_: unknown, { id }: { id: string }) => titleOf(id),
      },
      Title: {
        __resolveReference: (ref: { id: string }) => titleOf(ref.id),
        holders: (t: { id: string }) => EMPLOYEES.filter((e) => e.titleId === t.id),
      },
      Employee: {
        __resolveReference: (ref: { id: string }) => EMPLOYEES.find((e) => e.id === ref.id) ?? null,
        title: (e: Employee) => titleOf(e.titleId),
        ...(ours ? { favoriteMovie: (e: Employee) => ({ imdbId: e.favoriteMovie }) } : {}),
      },
    },
  };
}
