import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { resolveClientAddress, TrustedProxies } from '../src/client-address.js';
import { parseGatewayConfig } from '../src/config.js';
import { perAddressCap } from '../src/connection-limits.js';

// MP_TRUSTED_PROXIES (ADR 0075): behind an ingress every TCP peer is the ingress, so the client
// comes from X-Forwarded-For — but only when the peer is a proxy the operator named.
describe('the client address behind trusted proxies', () => {
  const ingress = new TrustedProxies(['10.42.0.0/16', '192.0.2.10', '2001:db8:100::/48']);
  const none = new TrustedProxies([]);

  it('takes the right-most X-Forwarded-For address that is not a trusted proxy, when the peer is trusted', () => {
    expect(resolveClientAddress('10.42.3.7', '203.0.113.5', ingress)).toBe('203.0.113.5');
    // the client wrote its own header: everything left of what the ingress appended is ignored
    expect(resolveClientAddress('10.42.3.7', '198.51.100.99, 203.0.113.5', ingress)).toBe('203.0.113.5');
    // two trusted hops (a load balancer, then the ingress) are skipped
    expect(resolveClientAddress('10.42.3.7', '198.51.100.99, 203.0.113.5, 192.0.2.10', ingress)).toBe('203.0.113.5');
    // repeated headers are one list, in order
    expect(resolveClientAddress('10.42.3.7', ['198.51.100.99', '203.0.113.5'], ingress)).toBe('203.0.113.5');
    // IPv6 clients and proxies, the bracketed and port forms, and a dual-stack socket's mapped peer
    expect(resolveClientAddress('2001:db8:100::5', '2001:DB8:7::1', ingress)).toBe('2001:db8:7::1');
    expect(resolveClientAddress('::ffff:10.42.0.1', '[2001:db8:7::1]:51234', ingress)).toBe('2001:db8:7::1');
    expect(resolveClientAddress('10.42.0.1', '203.0.113.5:51234', ingress)).toBe('203.0.113.5');
  });

  it('ignores the header from any other peer: a spoofed X-Forwarded-For does not choose the client', () => {
    expect(resolveClientAddress('198.51.100.7', '203.0.113.5', ingress)).toBe('198.51.100.7');
    expect(resolveClientAddress('10.43.0.1', '10.42.0.1', ingress)).toBe('10.43.0.1');
    expect(resolveClientAddress('::ffff:127.0.0.1', '203.0.113.5', none)).toBe('127.0.0.1');
  });

  it('falls back to the nearest trusted hop when the header is missing, garbled or all trusted', () => {
    expect(resolveClientAddress('10.42.3.7', undefined, ingress)).toBe('10.42.3.7');
    expect(resolveClientAddress('10.42.3.7', '', ingress)).toBe('10.42.3.7');
    expect(resolveClientAddress('10.42.3.7', 'unknown', ingress)).toBe('10.42.3.7');
    // garbage left of a real hop: the hop the ingress appended still counts
    expect(resolveClientAddress('10.42.3.7', 'evil, 203.0.113.5', ingress)).toBe('203.0.113.5');
    // garbage right of a trusted hop: nothing beyond it is believed
    expect(resolveClientAddress('10.42.3.7', '203.0.113.5, evil, 192.0.2.10', ingress)).toBe('192.0.2.10');
    expect(resolveClientAddress('10.42.3.7', '10.42.9.9, 192.0.2.10', ingress)).toBe('10.42.9.9');
  });

  it('does not cap a trusted proxy’s connections per address; other peers keep the cap', () => {
    const connection = (remoteAddress: string) => Object.assign(new EventEmitter(), { remoteAddress }) as unknown as Socket;
    const admit = perAddressCap(1, ingress);
    expect(admit(connection('10.42.0.5'))).toBe(true);
    expect(admit(connection('10.42.0.5'))).toBe(true);
    expect(admit(connection('198.51.100.7'))).toBe(true);
    expect(admit(connection('198.51.100.7'))).toBe(false);
  });
});

describe('MP_TRUSTED_PROXIES', () => {
  it('is empty when unset, and takes addresses and CIDR blocks of both families', () => {
    expect(parseGatewayConfig({}).MP_TRUSTED_PROXIES).toEqual([]);
    expect(parseGatewayConfig({ MP_TRUSTED_PROXIES: '10.42.0.0/16, 127.0.0.1,fd00::/8' }).MP_TRUSTED_PROXIES).toEqual([
      '10.42.0.0/16',
      '127.0.0.1',
      'fd00::/8',
    ]);
  });

  it.each(['ingress.local', '10.0.0.0/33', '*', '10.0.0.1,10.0.0.0/8/2'])('refuses %s at start, naming the setting and the entry', (value) => {
    expect(() => parseGatewayConfig({ MP_TRUSTED_PROXIES: value })).toThrow(
      /MP_TRUSTED_PROXIES: a comma-separated list of IP addresses or CIDR blocks.*is neither/,
    );
  });
});
