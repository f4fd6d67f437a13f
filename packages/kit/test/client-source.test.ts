import { clientSource } from '@mp/kit';

// What is counted per client (failed sign-ins, the authentication rate limit, connections per
// address): one IPv6 host usually holds a whole /64, so IPv6 clients count by their /64.
describe('clientSource', () => {
  it('counts IPv4 addresses, IPv6 /64 prefixes, IPv4-mapped addresses as IPv4, and anything else as one shared source', () => {
    expect(clientSource('198.51.100.7')).toBe('198.51.100.7');
    expect(clientSource('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(clientSource('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientSource('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientSource('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientSource('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientSource('::1')).toBe('0:0:0:0::/64');
    expect(clientSource('::ffff:10.0.0.1'.toUpperCase())).toBe('10.0.0.1');
    expect(clientSource('')).toBe('');
    expect(clientSource('not an address')).toBe('');
  });
});
