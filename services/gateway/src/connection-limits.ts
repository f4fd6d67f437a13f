import type { Socket } from 'node:net';
import { clientSource } from '@mp/kit';
import type { TrustedProxies } from './client-address.js';

/**
 * Open connections per client address on one listening port. A connection over the cap is
 * closed at once, before its TLS handshake: answering it would cost the handshake the cap is
 * there to save. 0 turns the cap off (e.g. behind a proxy whose few addresses carry everyone).
 * An IPv6 client counts by its /64 (clientSource): one host usually holds the whole prefix.
 * A trusted proxy (MP_TRUSTED_PROXIES) is not capped: the cap runs before any request header is
 * read, and a proxy's connections carry many clients (MP_MAX_CONNECTIONS still bounds them).
 */
export function perAddressCap(maxPerAddress: number, trusted?: TrustedProxies): (socket: Socket) => boolean {
  const open = new Map<string, number>();
  return (socket) => {
    if (maxPerAddress === 0) return true;
    if (trusted?.has(socket.remoteAddress ?? '')) return true;
    const address = clientSource(socket.remoteAddress ?? '');
    const count = open.get(address) ?? 0;
    if (count >= maxPerAddress) return false;
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
    return true;
  };
}
