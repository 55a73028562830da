import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientKey } from '../../src/pipeline/rules/fairShare.js';
import { ClientResolver } from '../../src/transports/clientIdentity.js';

const ROUTER_KEY = 'router-key-0123456789';
const request = (remoteAddress: string, headers: Record<string, string> = {}) =>
  ({ headers, socket: { remoteAddress }, connection: { remoteAddress } }) as unknown as IncomingMessage;

describe('ClientResolver', () => {
  const plain = new ClientResolver({ trustedProxies: [], routerKeys: [], routerClientHeader: undefined });
  const behind = new ClientResolver({
    trustedProxies: ['10.0.0.0/8'],
    routerKeys: [ROUTER_KEY],
    routerClientHeader: 'x-client-id',
  });

  it("takes the socket's peer, and X-Forwarded-For only from a trusted proxy: the nearest address that is not one", () => {
    expect(plain.of(request('203.0.113.9', { 'x-forwarded-for': '198.51.100.1' })).remoteAddress).toBe('203.0.113.9');
    expect(behind.of(request('10.0.0.2', { 'x-forwarded-for': '198.51.100.1, 10.0.0.7' })).remoteAddress).toBe(
      '198.51.100.1',
    );
    // A client's own header sits left of the address its proxy saw: that one wins.
    expect(behind.of(request('10.0.0.2', { 'x-forwarded-for': '192.0.2.66, 198.51.100.1' })).remoteAddress).toBe(
      '198.51.100.1',
    );
    expect(behind.of(request('203.0.113.9', { 'x-forwarded-for': '198.51.100.1' })).remoteAddress).toBe('203.0.113.9');
    // A proxy's socket counts per request, against each forwarded client; anyone else's socket against them.
    expect(behind.connectionShare(request('10.0.0.2'), {})).toBe('request');
    expect(behind.connectionShare(request('203.0.113.9'), {})).toBe('socket');
  });

  it("names the end client of a router's request by ROUTER_CLIENT_HEADER, of nobody else's", () => {
    const routed = behind.of(request('203.0.113.9', { 'x-api-key': ROUTER_KEY, 'x-client-id': 'alice' }));
    expect(routed).toEqual({ apiKey: ROUTER_KEY, remoteAddress: '203.0.113.9', router: true, subject: 'alice' });
    // A router's request counts against the end client it names; its own connections against no one.
    expect(behind.connectionShare(request('203.0.113.9'), routed)).toBe('request');
    expect(behind.connectionShare(request('203.0.113.9'), { apiKey: ROUTER_KEY, router: true })).toBe('none');
    expect(behind.of(request('203.0.113.9', { 'x-api-key': 'other-key-0123456789', 'x-client-id': 'alice' }))).toEqual({
      apiKey: 'other-key-0123456789',
      remoteAddress: '203.0.113.9',
    });
    expect(behind.of(request('203.0.113.9', { 'x-api-key': ROUTER_KEY }))).toEqual({
      apiKey: ROUTER_KEY,
      remoteAddress: '203.0.113.9',
      router: true,
    });
  });

  it("reads a graphql-ws operation's end client from its extensions.headers (whatever their case), on a router's connection only", () => {
    const connection = behind.ofConnection(request('203.0.113.9'), { 'x-api-key': ROUTER_KEY }, ROUTER_KEY);
    expect(connection).toEqual({ apiKey: ROUTER_KEY, remoteAddress: '203.0.113.9', router: true });
    expect(behind.ofOperation(connection, { headers: { 'X-Client-Id': 'bob' } }).subject).toBe('bob');
    expect(behind.ofOperation(connection, { headers: { 'x-client-id': 'x'.repeat(300) } }).subject).toBeUndefined();
    expect(
      behind.ofConnection(request('203.0.113.9'), { headers: { 'x-client-id': 'carol' } }, ROUTER_KEY).subject,
    ).toBe('carol');
    const browser = behind.ofConnection(request('203.0.113.9'), {}, 'other-key-0123456789');
    expect(behind.ofOperation(browser, { headers: { 'x-client-id': 'bob' } })).toBe(browser);
  });

  it('counts a subject before a key and a key before an address, as digests', () => {
    expect(clientKey(true, { apiKey: ROUTER_KEY, remoteAddress: '10.0.0.1', subject: 'alice' })).toMatch(
      /^subject:[\w-]{22}$/,
    );
    expect(clientKey(true, { apiKey: ROUTER_KEY, remoteAddress: '10.0.0.1' })).toMatch(/^key:[\w-]{22}$/);
    expect(clientKey(false, { apiKey: ROUTER_KEY, remoteAddress: '10.0.0.1' })).toBe('address:10.0.0.1');
    expect(clientKey(true, { subject: 'alice' })).not.toContain('alice');
  });
});
