import { BlockList, isIP, isIPv4 } from 'node:net';
import type { Middleware } from 'koa';

/**
 * An address as the gateway compares it: lower case, without an IPv6 zone, and an IPv4-mapped
 * IPv6 address (how a dual-stack socket reports IPv4 peers) as the IPv4 address. '' when it is
 * not an IP address at all.
 */
export function plainAddress(raw: string): string {
  const s = raw.trim().toLowerCase().split('%')[0]!;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  return isIP(s) ? s : '';
}

/**
 * The proxies whose X-Forwarded-For the gateway believes (MP_TRUSTED_PROXIES, ADR 0075): single
 * addresses and CIDR blocks, IPv4 and IPv6. Empty: no proxy is trusted and every client is its
 * TCP peer.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly entries: readonly string[];

  constructor(entries: readonly string[]) {
    this.entries = entries;
    for (const entry of entries) {
      const [ip, bits] = entry.split('/') as [string, string | undefined];
      const address = plainAddress(ip);
      const family = isIPv4(address) ? 'ipv4' : 'ipv6';
      if (!address) throw new Error(`not an address or CIDR block: ${entry}`);
      if (bits === undefined) this.list.addAddress(address, family);
      // An IPv4-mapped block (::ffff:10.0.0.0/104) is its IPv4 block, as peers are compared as IPv4.
      else if (family === 'ipv4' && !isIPv4(ip)) this.list.addSubnet(address, Math.max(0, Number(bits) - 96), family);
      else this.list.addSubnet(address, Number(bits), family);
    }
  }

  /** Whether `address` (as a socket or the header gives it) is one of the trusted proxies. */
  has(address: string): boolean {
    if (this.entries.length === 0) return false;
    const plain = plainAddress(address);
    if (!plain) return false;
    return this.list.check(plain, isIPv4(plain) ? 'ipv4' : 'ipv6');
  }
}

/** One X-Forwarded-For element as an address: `203.0.113.7`, `2001:db8::1`, `[2001:db8::1]:443`, `203.0.113.7:443`. */
function forwardedAddress(element: string): string {
  const s = element.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s)?.[1];
  if (bracketed !== undefined) return plainAddress(bracketed);
  const v4WithPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(s)?.[1];
  return plainAddress(v4WithPort ?? s);
}

/**
 * The client of a request. From a peer that is not a trusted proxy: the peer itself, whatever
 * the request's headers say (anyone can send X-Forwarded-For). From a trusted proxy: the
 * right-most X-Forwarded-For address that is not itself a trusted proxy — each proxy appends
 * the address it was reached from, so that is the first hop no trusted party vouches for, and
 * whatever the client wrote to the left of it is ignored. A trusted proxy that sends no usable
 * header is the client; when every listed hop is a trusted proxy, the left-most one is.
 */
export function resolveClientAddress(peer: string, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {
  const peerAddress = plainAddress(peer);
  if (!trusted.has(peerAddress) || forwardedFor === undefined) return peerAddress;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  let client = peerAddress;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = forwardedAddress(hops[i]!);
    // A hop that is not an address cannot be trusted, nor can anything the client wrote before it.
    if (!hop) break;
    client = hop;
    if (!trusted.has(hop)) break;
  }
  return client;
}

/**
 * First middleware: sets ctx.ip to the resolved client, so that everything counting per client
 * (the sign-in rate limit, failed sign-ins, the access log) reads the same address.
 */
export function clientAddress(trusted: TrustedProxies): Middleware {
  return async (ctx, next) => {
    ctx.request.ip = resolveClientAddress(ctx.req.socket.remoteAddress ?? '', ctx.req.headers['x-forwarded-for'], trusted);
    await next();
  };
}
