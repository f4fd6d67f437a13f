import http from 'node:http';
import https from 'node:https';
import { TransportError } from './errors.js';
import type { RawAnswer, SendOptions, Transport } from './transport.js';

/** One HTTP exchange over node:https (node:http for a plain-http URL), the whole answer read as text. */
export const nodeTransport: Transport = (opts: SendOptions): Promise<RawAnswer> => {
  const lib = opts.url.protocol === 'http:' ? http : https;
  const headers = { ...opts.headers, ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}) };
  const ca = typeof opts.ca === 'string' || opts.ca === undefined ? opts.ca : Buffer.from(opts.ca);
  return new Promise((resolve, reject) => {
    const req = lib.request(opts.url, { method: opts.method, headers, ...(ca ? { ca } : {}), timeout: opts.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => reject(new TransportError(`The answer was cut off: ${err.message}`, res.statusCode ?? null, { cause: err })));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', (err) => reject(new TransportError(`${opts.method} ${opts.url.pathname} failed: ${err.message}`, null, { cause: err })));
    req.end(opts.body);
  });
};
