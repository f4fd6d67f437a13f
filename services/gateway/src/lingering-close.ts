import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

const servedRequest = new WeakMap<Socket, IncomingMessage>();

/** Remembers which request a connection is serving, for lingerBeforeClose. */
export function noteRequest(req: IncomingMessage): void {
  servedRequest.set(req.socket, req);
}

/**
 * Lingering close (RFC 9112 §9.6). Node's HTTP server ends a connection right after its last
 * response (`socket.destroySoon()`), even when the client is still sending the request body it
 * refused (a 401 before the body, a 400005 over Content-Length): the unread bytes then make the
 * kernel answer with a reset, and a client that writes its whole body before reading (Python's
 * urllib, which sends `Connection: close`) sees "connection reset" instead of the answer. So the
 * close waits until the request's body has arrived — Node discards it as it comes, nothing is
 * held — or `lingerMs` has passed, whichever is first.
 */
export function lingerBeforeClose(socket: Socket, lingerMs: number): void {
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    const req = servedRequest.get(socket);
    if (!req || req.complete || socket.destroyed) return destroySoon();
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    socket.once('close', () => clearTimeout(timer));
    req.once('end', () => {
      clearTimeout(timer);
      destroySoon();
    });
  };
}
