/**
 * One sample address per range a webhook must never reach (docs/rules.md#webhook-targets: loopback, private,
 * link-local, CGNAT, multicast, reserved, IPv6 unique-local/link-local), each IPv4 range also in
 * its IPv4-mapped IPv6 form. The SSRF tests run every layer (creation, connection, redirect) over
 * this list.
 */
const V4: [string, string][] = [
  ['0.0.0.0/8 this network', '0.1.2.3'],
  ['10.0.0.0/8 private', '10.20.30.40'],
  ['100.64.0.0/10 CGNAT', '100.100.1.1'],
  ['127.0.0.0/8 loopback', '127.0.0.2'],
  ['169.254.0.0/16 link-local (cloud metadata)', '169.254.169.254'],
  ['172.16.0.0/12 private', '172.20.0.1'],
  ['192.0.0.0/24 IETF protocol assignments', '192.0.0.170'],
  ['192.0.2.0/24 TEST-NET-1', '192.0.2.10'],
  ['192.88.99.0/24 6to4 relay', '192.88.99.2'],
  ['192.168.0.0/16 private', '192.168.1.10'],
  ['198.18.0.0/15 benchmarking', '198.18.5.5'],
  ['198.51.100.0/24 TEST-NET-2', '198.51.100.1'],
  ['203.0.113.0/24 TEST-NET-3', '203.0.113.9'],
  ['224.0.0.0/4 multicast', '239.1.1.1'],
  ['240.0.0.0/4 reserved', '250.0.0.1'],
  ['255.255.255.255 broadcast', '255.255.255.255'],
];

const V6: [string, string][] = [
  ['::1 loopback', '::1'],
  [':: unspecified', '::'],
  ['fc00::/7 unique-local', 'fd00:1234::5'],
  ['fe80::/10 link-local', 'fe80::1:2'],
  ['fec0::/10 site-local (deprecated)', 'fec0::1'],
  ['ff00::/8 multicast', 'ff0e::1'],
  ['100::/64 discard-only', '100::1'],
  ['2001:db8::/32 documentation', '2001:db8:1::1'],
  ['2001::/32 Teredo', '2001:0:4136::1'],
  ['2001:2::/48 benchmarking', '2001:2::9'],
  ['2001:20::/28 ORCHIDv2', '2001:20::1'],
  ['3fff::/20 documentation', '3fff:1::1'],
  ['64:ff9b::/96 NAT64 of a private address', '64:ff9b::a00:1'],
  ['2002::/16 6to4 of a private address', '2002:c0a8:101::1'],
  ['::ffff:0:0:0/96 IPv4-translated', '::ffff:0:7f00:1'],
  ['outside 2000::/3 (unassigned)', '4000::1'],
];

export const FORBIDDEN_SAMPLES: [string, string][] = [...V4, ...V4.map(([range, ip]): [string, string] => [`${range}, IPv4-mapped`, `::ffff:${ip}`]), ...V6];

/** The address as the host of a URL. */
export const urlHost = (ip: string) => (ip.includes(':') ? `[${ip}]` : ip);
