import { isIPv4, isIPv6 } from 'node:net';

/**
 * The source a client's address counts as, wherever something is counted per client (failed
 * sign-ins, ADR 0019; the authentication rate limit and the connection cap per address, ADR 0017):
 * an IPv4 address, or the /64 prefix of an IPv6 address — one IPv6 host usually holds a whole /64,
 * so counting single IPv6 addresses would give an attacker 2^64 fresh sources. An IPv4-mapped IPv6
 * address (::ffff:192.0.2.1, how a dual-stack socket reports IPv4 peers) is the IPv4 address.
 * Anything else (no address given) is the one shared source "".
 */
export function clientSource(address: string): string {
  const plain = address.trim().toLowerCase().split('%')[0]!;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (isIPv4(plain)) return plain;
  if (isIPv6(plain)) return `${ipv6Groups(plain).slice(0, 4).join(':')}::/64`;
  return '';
}

/** The eight 16-bit groups of a valid IPv6 address, in shortest hex (an embedded IPv4 tail counts as two). */
function ipv6Groups(address: string): string[] {
  const withoutV4 = address.includes('.') ? address.replace(/\d+\.\d+\.\d+\.\d+$/, '0:0') : address;
  const [head, tail] = withoutV4.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16));
}
