import { describe, expect, it } from 'vitest';
import { hostPorts } from '../../../src/config/variables.js';
import { GatewayError } from '../../../src/errors/codes.js';
import { allowedCallbackUrl, readCallbackRequest } from '../../../src/transports/callback/request.js';
import { heartbeatPeriod } from '../../../src/transports/callback/subscriptions.js';

const HOSTS = hostPorts.parse('Router.Internal, 10.0.0.7:4000, [FD00::7]:8080');
const refusal = (value: unknown) => (value instanceof GatewayError ? value.extensions : value);

describe('SUBSCRIPTION_CALLBACK_HOSTS', () => {
  it('keeps each host as a URL parse writes it, with its port when one is given', () => {
    expect(HOSTS).toEqual(['router.internal', '10.0.0.7:4000', '[fd00::7]:8080']);
    expect(hostPorts.parse('0x7f.1:80')).toEqual(['127.0.0.1:80']);
  });

  it.each([
    'http://router.internal',
    'router.internal/callback',
    'user@router.internal',
    'router:port',
    '::1',
    'router.internal:70000',
  ])('refuses %s, naming the form it takes', (entry) => {
    expect(() => hostPorts.parse(entry)).toThrow(/must be a host name or address, optionally with :port/);
  });
});

describe('a callbackUrl', () => {
  it('is taken on a listed host (any port for a bare name, that port for host:port), its fragment dropped', () => {
    expect(String(allowedCallbackUrl('https://ROUTER.internal:9443/callback/1#x', HOSTS))).toBe(
      'https://router.internal:9443/callback/1',
    );
    expect(allowedCallbackUrl('http://10.0.0.7:4000/callback/1', HOSTS)).toBeInstanceOf(URL);
    expect(allowedCallbackUrl('http://[fd00:0::7]:8080/cb', HOSTS)).toBeInstanceOf(URL);
  });

  it.each([
    ['another port of a host:port entry', 'http://10.0.0.7:4001/callback'],
    ['the default port when the entry names one', 'http://10.0.0.7/callback'],
    ['loopback by another name', 'http://127.0.0.1:4000/callback'],
    ['loopback written as one number', 'http://2130706433:4000/callback'],
    ['a subdomain of a listed name', 'http://evil.router.internal/callback'],
    ['a trailing dot', 'http://router.internal./callback'],
  ])('is refused on %s', (_, url) => {
    expect(refusal(allowedCallbackUrl(url, HOSTS))).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'CALLBACK_HOST_NOT_ALLOWED',
    });
  });

  it('is taken when its number form is the listed address', () => {
    expect(String(allowedCallbackUrl('http://167772167:4000/callback', ['10.0.0.7:4000']))).toBe(
      'http://10.0.0.7:4000/callback',
    );
  });

  it.each([
    ['credentials', 'http://user:pw@router.internal/callback', 'user name or password'],
    ['another scheme', 'ftp://router.internal/callback', 'http or https URL, not ftp:'],
    ['no scheme', 'router.internal/callback', 'not an absolute URL'],
    ['too long', `http://router.internal/${'a'.repeat(2100)}`, 'longer than 2048'],
  ])('is refused with %s before its host is looked at', (_, url, message) => {
    const error = allowedCallbackUrl(url, HOSTS) as GatewayError;
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain(message);
  });

  it('is refused whatever it names while SUBSCRIPTION_CALLBACK_HOSTS is unset, with the setting named', () => {
    const error = allowedCallbackUrl('http://router.internal/callback', undefined) as GatewayError;
    expect(error.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'CALLBACK_HOST_NOT_ALLOWED' });
    expect(error.message).toContain('SUBSCRIPTION_CALLBACK_HOSTS');
  });
});

describe('extensions.subscription', () => {
  const valid = {
    callbackUrl: 'http://router.internal/cb/1',
    subscriptionId: '1',
    verifier: 'v',
    heartbeatIntervalMs: 5000,
  };

  it('reads the four fields of callbackSpec 1.0, 5000 ms when the router sends no interval', () => {
    expect(readCallbackRequest(valid, HOSTS)).toMatchObject({ id: '1', verifier: 'v', heartbeatIntervalMs: 5000 });
    const { heartbeatIntervalMs: _, ...noInterval } = valid;
    expect(readCallbackRequest(noInterval, HOSTS)).toMatchObject({ heartbeatIntervalMs: 5000 });
    expect(readCallbackRequest({ ...valid, heartbeatIntervalMs: 0 }, HOSTS)).toMatchObject({ heartbeatIntervalMs: 0 });
  });

  it.each([
    ['not an object', 'subscribe', 'must be an object'],
    ['the preview names', { callback_url: valid.callbackUrl, subscription_id: '1', verifier: 'v' }, 'not callback_url'],
    ['an empty verifier', { ...valid, verifier: '' }, 'verifier must be a non-empty string'],
    ['a megabyte id', { ...valid, subscriptionId: 'x'.repeat(300) }, 'at most 256 characters'],
    ['a 1 ms heartbeat', { ...valid, heartbeatIntervalMs: 1 }, 'heartbeatIntervalMs is 1'],
    [
      'a heartbeat past what a timer holds',
      { ...valid, heartbeatIntervalMs: 2 ** 31 },
      'heartbeatIntervalMs is 2147483648',
    ],
    ['a fractional heartbeat', { ...valid, heartbeatIntervalMs: 1500.5 }, 'heartbeatIntervalMs is 1500.5'],
  ])('is refused with %s', (_, subscription, message) => {
    const error = readCallbackRequest(subscription, HOSTS) as GatewayError;
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain(message);
  });
});

describe('the heartbeat period', () => {
  it('sends a check a quarter interval ahead of the end of each interval', () => {
    expect([heartbeatPeriod(5000), heartbeatPeriod(50_000), heartbeatPeriod(100)]).toEqual([3750, 37_500, 75]);
  });
});
