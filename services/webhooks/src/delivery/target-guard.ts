import dns from 'node:dns';
import net from 'node:net';
import { DomainError, excerpt } from '@mp/errors';

/*
 * SSRF protection for webhook targets. A webhook URL is caller-controlled, so the service must not
 * be usable to reach loopback, private networks, cloud metadata endpoints (169.254.169.254) and
 * the like. The check happens twice: when the URL is registered (assertWebhookUrlAllowed) and at
 * connect time (guardedLookup), because a name can resolve differently later (DNS rebinding).
 */

// ---------------------------------------------------------------------------------------------
// Address parsing
// ---------------------------------------------------------------------------------------------

/** IPv4 ranges that are never a legitimate webhook target: [network, prefix length]. */
const FORBIDDEN_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved (includes 255.255.255.255 broadcast)
  ['255.255.255.255', 32], // limited broadcast (explicit, already inside 240/4)
];

function v4ToInt(ip: string): number {
  const p = ip.split('.').map(Number);
  return ((p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]) >>> 0;
}

const FORBIDDEN_V4_MASKS = FORBIDDEN_V4.map(([base, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { net: (v4ToInt(base) & mask) >>> 0, mask };
});

function isForbiddenV4Int(addr: number): boolean {
  return FORBIDDEN_V4_MASKS.some(({ net: n, mask }) => (addr & mask) >>> 0 === n);
}

/** Parses a textual IPv6 address (already validated by net.isIPv6, zone removed) into 16 bytes. */
function v6ToBytes(ip: string): Uint8Array {
  let text = ip.toLowerCase();
  // A trailing dotted quad ("::ffff:127.0.0.1") becomes two hex groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = v4ToInt(tail);
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(fill).fill('0'), ...restGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    bytes[i * 2] = (v >> 8) & 0xff;
    bytes[i * 2 + 1] = v & 0xff;
  });
  return bytes;
}

function embeddedV4(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] << 24) | (bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) | bytes[offset + 3]) >>> 0;
}

function allZero(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] !== 0) return false;
  return true;
}

function isForbiddenV6Bytes(b: Uint8Array): boolean {
  // ::/96 — unspecified (::), loopback (::1) and the deprecated IPv4-compatible addresses.
  if (allZero(b, 0, 12)) return true;
  // ::ffff:0:0/96 — IPv4-mapped: the target is really the embedded IPv4 address.
  if (allZero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return isForbiddenV4Int(embeddedV4(b, 12));
  // 64:ff9b::/96 — well-known NAT64 prefix: the translator connects to the embedded IPv4 address.
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (allZero(b, 4, 12)) return isForbiddenV4Int(embeddedV4(b, 12));
    return true; // 64:ff9b:1::/48 local-use NAT64 and the rest of 64:ff9b::/32: not global
  }
  // 2002::/16 — 6to4: the embedded IPv4 address is in bits 16..47.
  if (b[0] === 0x20 && b[1] === 0x02) return isForbiddenV4Int(embeddedV4(b, 2));
  // fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 old site-local, ff00::/8 multicast.
  if ((b[0] & 0xfe) === 0xfc) return true;
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return true;
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return true;
  if (b[0] === 0xff) return true;
  // Everything else outside global unicast 2000::/3 (e.g. 100::/64 discard, ::ffff:0:0:0/96
  // IPv4-translated, unassigned space) is not a routable public target.
  if ((b[0] & 0xe0) !== 0x20) return true;
  // Special blocks inside 2000::/3.
  if (b[0] === 0x20 && b[1] === 0x01) {
    if (b[2] === 0x0d && b[3] === 0xb8) return true; // 2001:db8::/32 documentation
    if (b[2] === 0x00 && b[3] === 0x00) return true; // 2001::/32 Teredo
    if (b[2] === 0x00 && b[3] === 0x02 && b[4] === 0x00 && b[5] === 0x00) return true; // 2001:2::/48 benchmarking
    if (b[2] === 0x00 && (b[3] & 0xf0) === 0x10) return true; // 2001:10::/28 ORCHID
    if (b[2] === 0x00 && (b[3] & 0xf0) === 0x20) return true; // 2001:20::/28 ORCHIDv2
  }
  if (b[0] === 0x3f && b[1] === 0xff && (b[2] & 0xf0) === 0x00) return true; // 3fff::/20 documentation
  return false;
}

/** Accepts legacy IPv4 spellings too ("127.1", "0x7f.0.0.1", "2130706433", "0177.0.0.1"). */
function normaliseLegacyV4(text: string): string | null {
  if (!/^[0-9a-fx.]+$/i.test(text) || !/[0-9]/.test(text)) return null;
  try {
    const host = new URL(`http://${text}/`).hostname;
    return net.isIPv4(host) ? host : null;
  } catch {
    return null;
  }
}

/**
 * True when `ip` lies in a range a webhook must never reach (loopback, private, link-local,
 * CGNAT, documentation, multicast, reserved, ...), including IPv6 forms that embed such an IPv4
 * address (IPv4-mapped in dotted or hex form, NAT64, 6to4). Accepts bracketed IPv6 and zone ids.
 * Fails closed: input that is not an IP address at all returns true.
 */
export function isForbiddenAddress(ip: string): boolean {
  if (typeof ip !== 'string') return true;
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (net.isIPv4(text)) return isForbiddenV4Int(v4ToInt(text));
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  if (net.isIPv6(text)) return isForbiddenV6Bytes(v6ToBytes(text));
  const legacy = normaliseLegacyV4(text);
  if (legacy) return isForbiddenV4Int(v4ToInt(legacy));
  return true;
}

// ---------------------------------------------------------------------------------------------
// Registration-time check
// ---------------------------------------------------------------------------------------------

export type ResolveHost = (host: string) => Promise<string[]>;

export const defaultResolve: ResolveHost = async (host) => {
  const addresses = await dns.promises.lookup(host, { all: true });
  return addresses.map((a) => a.address);
};

const SUGGESTION_HTTPS = 'Use an https:// URL of a publicly reachable receiver, e.g. https://hooks.example.com/monitoring.';

function refuse(detail: string, suggestion = SUGGESTION_HTTPS): never {
  throw new DomainError('422103', { field: 'url', detail, suggestion });
}

/** The host of a parsed URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  const h = url.hostname;
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/**
 * Validates a webhook URL: absolute, https, a port of 1 to 65535, no credentials and (unless allowPrivate) a host that
 * is not, and does not resolve to, a forbidden address. Throws DomainError 422103 (field `url`).
 * With allowPrivate the scheme and credential rules still apply, but the host is not resolved.
 */
export async function assertWebhookUrlAllowed(url: string, opts: { allowPrivate: boolean; resolve?: ResolveHost }): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    refuse('url is not a valid absolute URL');
  }
  // The URL parser refuses ports above 65535 but keeps port 0, which no receiver can listen on.
  if (parsed.port === '0') refuse('url port must be 1 to 65535 (got 0)', 'Use the port your receiver listens on, or none for 443.');
  if (parsed.protocol !== 'https:') refuse(`url must use https (got ${excerpt(parsed.protocol.replace(/:$/, ''))})`);
  if (parsed.username !== '' || parsed.password !== '') {
    refuse(
      'url must not contain credentials (user:password@)',
      'Remove the credentials from the URL; deliveries are authenticated by the X-Service-Signature header.',
    );
  }
  const host = hostOf(parsed);
  if (host === '') refuse('url has no host');
  if (opts.allowPrivate) return;

  const privateSuggestion = 'Webhook receivers must be reachable on the public internet; private, loopback and reserved addresses are refused.';
  if (net.isIP(host)) {
    if (isForbiddenAddress(host)) refuse(`url host ${excerpt(host)} is a private or reserved address`, privateSuggestion);
    return;
  }
  let addresses: string[];
  try {
    addresses = await (opts.resolve ?? defaultResolve)(host);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | null)?.code;
    refuse(`url host ${excerpt(host)} does not resolve${code ? ` (${code})` : ''}`, 'Check the host name of the URL; it must resolve in public DNS.');
  }
  if (!Array.isArray(addresses) || addresses.length === 0) {
    refuse(`url host ${excerpt(host)} does not resolve`, 'Check the host name of the URL; it must resolve in public DNS.');
  }
  const bad = addresses.find((a) => isForbiddenAddress(a));
  if (bad !== undefined) refuse(`url host ${excerpt(host)} resolves to the private or reserved address ${bad}`, privateSuggestion);
}

// ---------------------------------------------------------------------------------------------
// Connect-time check
// ---------------------------------------------------------------------------------------------

export class SsrfError extends Error {
  readonly code = 'ESSRF';
  readonly hostname: string;
  readonly address: string;
  constructor(hostname: string, address: string) {
    super(`refused to connect to ${hostname}: it resolves to the private or reserved address ${address}`);
    this.name = 'SsrfError';
    this.hostname = hostname;
    this.address = address;
  }
}

/**
 * Decides whether an address is refused; isForbiddenAddress in production. Tests pass the same
 * policy with their receiver's own loopback address exempted, to reach a first hop and then
 * prove that a redirect to a private address is refused.
 */
export type AddressPolicy = (ip: string) => boolean;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A drop-in for `dns.lookup` (the `lookup` option of net/tls/https) that refuses, with an Error
 * whose code is 'ESSRF', any name resolving to a forbidden address. Because the socket connects
 * to exactly the addresses returned here, the check also holds against DNS rebinding.
 * `resolve` replaces the system resolver and `isForbidden` the address policy (tests).
 */
export function guardedLookup(allowPrivate: boolean, resolve?: ResolveHost, isForbidden: AddressPolicy = isForbiddenAddress): net.LookupFunction {
  return function lookup(hostname: string, options: dns.LookupOptions | number | LookupCallback | undefined, callback?: LookupCallback): void {
    let cb = callback;
    let o: dns.LookupOptions = {};
    if (typeof options === 'function') cb = options;
    else if (typeof options === 'number') o = { family: options };
    else if (options && typeof options === 'object') o = options;
    if (typeof cb !== 'function') throw new TypeError('lookup: callback must be a function');
    const done = cb;

    const finish = (err: NodeJS.ErrnoException | null, list: dns.LookupAddress[]) => {
      if (err) return done(err, o.all ? [] : '', undefined);
      if (list.length === 0) {
        const e: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
        return done(e, o.all ? [] : '', undefined);
      }
      if (!allowPrivate) {
        const bad = list.find((a) => isForbidden(a.address));
        if (bad) return done(new SsrfError(hostname, bad.address), o.all ? [] : '', undefined);
      }
      if (o.all) done(null, list);
      else done(null, list[0].address, list[0].family);
    };

    if (resolve) {
      const wanted = o.family === 'IPv4' ? 4 : o.family === 'IPv6' ? 6 : o.family;
      resolve(hostname).then(
        (addresses) => {
          const list = addresses.map((address) => ({ address, family: net.isIP(address) })).filter((a) => a.family !== 0 && (!wanted || a.family === wanted));
          finish(null, list);
        },
        (err: NodeJS.ErrnoException) => finish(err instanceof Error ? err : new Error(String(err)), []),
      );
      return;
    }
    dns.lookup(hostname, { ...o, all: true }, (err, addresses) => finish(err, err ? [] : addresses));
  } as net.LookupFunction;
}
