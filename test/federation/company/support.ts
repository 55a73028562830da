/**
 * A company's support desk: tickets and the chat between an agent and a customer, with a `ChatMessage` entity of its
 * own. Once this project's subgraph is in the supergraph, each ticket names the service it is about (a reference to
 * the service-health entity) and the service-health entity gains its open tickets.
 */
import type { CompanySubgraph } from './subgraph.js';
import { LINK, type OurNames } from './names.js';

export const TICKETS = [
  { id: 'T-1', subject: 'Mail stuck in outbox', serviceId: 'Exchange' },
  { id: 'T-2', subject: 'Cannot open a site', serviceId: 'SharePoint' },
  { id: 'T-3', subject: 'Calendar invites missing', serviceId: 'Exchange' },
];

export const MESSAGES = [
  {
    id: 'm1',
    ticketId: 'T-1',
    author: 'customer',
    text: 'My mail has been in the outbox since 9.',
    sentAt: '2026-03-02T09:12:00Z',
  },
  {
    id: 'm2',
    ticketId: 'T-1',
    author: 'agent',
    text: 'Exchange reports an incident; we are on it.',
    sentAt: '2026-03-02T09:15:00Z',
  },
  { id: 'm3', ticketId: 'T-2', author: 'customer', text: 'The intranet says 503.', sentAt: '2026-03-02T10:01:00Z' },
];

type Ticket = (typeof TICKETS)[number];

export function support(ours?: OurNames): CompanySubgraph {
  const service = ours
    ? `
  extend type Ticket { "The service the ticket is about, from the ops subgraph." service: ${ours.ServiceHealth} }
  type ${ours.ServiceHealth} @key(fields: "id") { id: ID! openTickets: [Ticket!]! }`
    : '';
  const sdl = `${LINK}
  type Query { tickets: [Ticket!]! supportChat(ticket: ID!): [ChatMessage!]! }
  "A message of the support chat between an agent and a customer."
  type ChatMessage @key(fields: "id") { id: ID! author: String! text: String! sentAt: String! }
  type Ticket @key(fields: "id") { id: ID! subject: String! messages: [ChatMessage!]! }
  ${service}`;
  const ticketOf = (id: string) => TICKETS.find((t) => t.id === id) ?? null;
  return {
    name: 'support',
    sdl,
    resolvers: {
      Query: {
        tickets: () => TICKETS,
        supportChat: (_: unknown, { ticket }: { ticket: string }) => MESSAGES.filter((m) => m.ticketId === ticket),
      },
      ChatMessage: { __resolveReference: (ref: { id: string }) => MESSAGES.find((m) => m.id === ref.id) ?? null },
      Ticket: {
        __resolveReference: (ref: { id: string }) => ticketOf(ref.id),
        messages: (t: Ticket) => MESSAGES.filter((m) => m.ticketId === t.id),
        ...(ours ? { service: (t: Ticket) => ({ id: t.serviceId }) } : {}),
      },
      ...(ours
        ? {
            [ours.ServiceHealth]: {
              __resolveReference: (ref: { id: string }) => ref,
              openTickets: (s: { id: string }) => TICKETS.filter((t) => t.serviceId === s.id),
            },
          }
        : {}),
    },
  };
}
