import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { RequestListener } from 'node:http';
import { DomainError } from '@mp/errors';
import { errorBody } from './envelope.js';
import { newRequestId } from './request-id.js';

const TLS_HANDSHAKE = 0x16;

/**
 * One port that speaks HTTPS and refuses plain HTTP with the error envelope. The first byte of a
 * connection tells them apart: a TLS handshake record starts with 0x16. A plain-HTTP request
 * never reaches the application, so it has no side effect.
 */
export function createHttpsOnlyServer(tls: { cert: string; key: string }, handler: RequestListener, docsUrl: () => string): net.Server {
  const secure = https.createServer({ cert: tls.cert, key: tls.key }, handler);
  secure.keepAliveTimeout = 65_000;
  const plain = http.createServer((req, res) => {
    const requestId = newRequestId();
    const err = new DomainError('400001', {
      field: 'scheme',
      detail: 'Plain HTTP is refused; this API is served over HTTPS only.',
      suggestion: `Call https://${req.headers.host ?? 'this host'}${req.url ?? '/'} instead.`,
    });
    const body = JSON.stringify(errorBody(err, requestId, docsUrl()));
    res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, connection: 'close', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    req.resume();
  });
  const server = net.createServer((socket) => {
    socket.once('data', (chunk) => {
      socket.pause();
      socket.unshift(chunk);
      (chunk[0] === TLS_HANDSHAKE ? secure : plain).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
    socket.on('error', () => socket.destroy());
  });
  server.on('close', () => {
    secure.close();
    plain.close();
  });
  (server as net.Server & { closeIdle?: () => void }).closeIdle = () => {
    secure.closeAllConnections();
    plain.closeAllConnections();
  };
  return server;
}
