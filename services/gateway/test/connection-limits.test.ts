import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { perAddressCap } from '../src/connection-limits.js';

/** What the cap reads of a connection: its peer address and its close. */
const connection = (remoteAddress: string) => Object.assign(new EventEmitter(), { remoteAddress }) as unknown as Socket;

describe('connections per client address', () => {
  it('counts an IPv6 client by its /64, so fresh addresses of one prefix share the cap', () => {
    const admit = perAddressCap(2);
    const a = connection('2001:db8:1:2::1');
    expect(admit(a)).toBe(true);
    expect(admit(connection('2001:db8:1:2::2'))).toBe(true);
    expect(admit(connection('2001:db8:1:2:ffff::9'))).toBe(false);
    // another prefix, and IPv4 clients, each have their own count
    expect(admit(connection('2001:db8:1:3::1'))).toBe(true);
    expect(admit(connection('198.51.100.7'))).toBe(true);
    // a closed connection gives its place back
    a.emit('close');
    expect(admit(connection('2001:db8:1:2::3'))).toBe(true);
  });
});
