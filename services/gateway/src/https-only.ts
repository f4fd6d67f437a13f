import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { RequestListener } from 'node:http';
import { DomainError } from '@mp/errors';
import { answerClientError, errorResponse } from './client-error.js';
import type { TrustedProxies } from './client-address.js';
import { perAddressCap } from './connection-limits.js';
import { armRequestDeadline } from './request-deadline.js';
import { lingerBeforeClose, noteRequest } from './lingering-close.js';
import { TLS_POLICY } from './tls-policy.js';

const TLS_HANDSHAKE = 0x16;

/** What one port lets a client hold, and for how long (gateway settings, ADR 0017). */
export interface FrontDoorSettings {
  /** Open connections of the port (0: no cap). */
  maxConnections: number;
  /** Open connections of one client address (0: no cap); a trusted proxy's are not capped per address. */
  maxConnectionsPerAddress: number;
  trustedProxies?: TrustedProxies;
  firstByteTimeoutMs: number;
  tlsHandshakeTimeoutMs: number;
  headersTimeoutMs: number;
  /** The gateway's own reader enforces it; Node's whole-request timeout is a backstop above it. */
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
  lingeringCloseMs: number;
}

/**
 * Node's HTTP timeouts for both servers; the connection check runs often enough for short timeouts.
 * The whole-request time is the gateway's own (request-deadline.ts), so a route may leave it.
 */
function httpTimeouts(s: FrontDoorSettings) {
  return {
    headersTimeout: s.headersTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: s.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, s.headersTimeoutMs),
  };
}

/**
 * One port that speaks HTTPS and refuses plain HTTP with the error envelope. The first byte of a
 * connection tells them apart: a TLS handshake record starts with 0x16. A plain-HTTP request
 * never reaches the application, so it has no side effect.
 *
 * Each stage of a connection has a deadline, so that no client holds one for free: the first
 * byte, the TLS handshake, the request headers, the body (read by the routes after
 * authentication), and the idle time between keep-alive requests. Connections are capped per
 * port and per client address.
 */
/** The port's server; `drain` stops accepting, lets in-flight requests finish and resolves when the last connection ends. */
export type DrainableServer = net.Server & {
  closeIdle(): void;
  drain(): Promise<void>;
  /** Serves this pair to every new connection (a renewed certificate); open ones keep theirs. */
  setCertificate(tls: { cert: string; key: string }): void;
};

export function createHttpsOnlyServer(
  tls: { cert: string; key: string },
  handler: RequestListener,
  docsUrl: () => string,
  settings: FrontDoorSettings,
): DrainableServer {
  const timeouts = httpTimeouts(settings);
  // From the headers to the last byte of the body: Node's requestTimeout less its headersTimeout.
  const requestDeadlineMs = settings.bodyTimeoutMs + settings.lingeringCloseMs;
  const clientError = answerClientError(docsUrl, settings.headersTimeoutMs);
  let draining = false;
  /** Answers being made; when a drain begins, each closes its connection once it is sent. */
  const inFlight = new Set<http.ServerResponse>();
  const closeAfter = (res: http.ServerResponse) => {
    // Not sent yet: it goes out with `Connection: close`. Headers already out: the connection
    // ends once the body is sent, instead of idling in keep-alive until its timeout.
    if (!res.headersSent) res.shouldKeepAlive = false;
    else res.once('finish', () => res.socket?.end());
  };
  const secure = https.createServer(
    { cert: tls.cert, key: tls.key, ...TLS_POLICY, handshakeTimeout: settings.tlsHandshakeTimeoutMs, ...timeouts },
    (req, res) => {
      noteRequest(req);
      armRequestDeadline(req, res, requestDeadlineMs, (err) => clientError(err, req.socket));
      // While draining, each answer closes its connection: the client's next request opens a
      // new one, to a gateway that still serves.
      if (draining) res.shouldKeepAlive = false;
      else {
        inFlight.add(res);
        res.once('close', () => inFlight.delete(res));
      }
      handler(req, res);
    },
  );
  secure.on('secureConnection', (socket) => lingerBeforeClose(socket, settings.lingeringCloseMs));
  secure.on('clientError', clientError);
  const plain = http.createServer(timeouts, (req, res) => {
    noteRequest(req);
    const err = new DomainError('400001', {
      field: 'scheme',
      detail: 'Plain HTTP is refused; this API is served over HTTPS only.',
      suggestion: `Call https://${req.headers.host ?? 'this host'}${req.url ?? '/'} instead.`,
    });
    const { status, headers, body } = errorResponse(err, docsUrl());
    res.writeHead(status, headers);
    res.end(body);
  });
  plain.on('connection', (socket: net.Socket) => lingerBeforeClose(socket, settings.lingeringCloseMs));
  plain.on('clientError', clientError);

  // Node enforces headersTimeout, and tracks the connections that
  // closeAllConnections() ends, from a server's 'listening' event on. These two never listen (the
  // port belongs to the net.Server below, which hands them their connections), so they are told.
  secure.emit('listening');
  plain.emit('listening');

  const admit = perAddressCap(settings.maxConnectionsPerAddress, settings.trustedProxies);
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    if (!admit(socket)) return socket.destroy();
    // A connection that never sends a byte is closed: neither server has seen it yet.
    const silent = () => socket.destroy();
    socket.setTimeout(settings.firstByteTimeoutMs, silent);
    socket.once('data', (chunk) => {
      socket.setTimeout(0);
      socket.off('timeout', silent);
      socket.pause();
      socket.unshift(chunk);
      (chunk[0] === TLS_HANDSHAKE ? secure : plain).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  });
  if (settings.maxConnections > 0) server.maxConnections = settings.maxConnections;
  server.on('close', () => {
    secure.close();
    plain.close();
  });
  (server as DrainableServer).closeIdle = () => {
    secure.closeAllConnections();
    plain.closeAllConnections();
  };
  (server as DrainableServer).setCertificate = (pair) => secure.setSecureContext({ cert: pair.cert, key: pair.key, ...TLS_POLICY });
  (server as DrainableServer).drain = () =>
    new Promise<void>((resolve) => {
      draining = true;
      for (const res of inFlight) closeAfter(res);
      inFlight.clear();
      if (!server.listening) return resolve();
      server.close(() => resolve());
      secure.closeIdleConnections();
      plain.closeIdleConnections();
    });
  return server as DrainableServer;
}
