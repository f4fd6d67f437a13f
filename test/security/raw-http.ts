import net from 'node:net';
import tls from 'node:tls';
import { testCertificate } from '@mp/testing';

/** Raw connections to the gateway, for what an HTTP client library hides: partial requests, silence, resets. */

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** A TLS connection to the gateway (trusting the test certificate); `tls` options narrow what the client offers. */
// tls.connect passes socket options such as localAddress on to net.connect; its type omits them.
export async function connectTls(port: number, opts: tls.ConnectionOptions & { localAddress?: string } = {}): Promise<tls.TLSSocket> {
  const ca = (await testCertificate()).cert;
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost', ...opts }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A plain TCP connection (nothing sent), optionally from another loopback address. */
export function connectTcp(port: number, localAddress?: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves when the peer has closed the socket; rejects when that has not happened within `boundMs`. */
export function closedByPeer(socket: net.Socket, boundMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve();
    const timer = setTimeout(() => reject(new Error(`the gateway kept the connection open for ${boundMs} ms`)), boundMs);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.resume();
  });
}

/** The first whole response on the socket (status line, headers, Content-Length body); rejects after `boundMs`. */
export function readResponse(socket: net.Socket, boundMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => fail(new Error(`no complete response within ${boundMs} ms`)), boundMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.off('data', onData);
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (buffered.length < end + 4 + length) return;
      clearTimeout(timer);
      socket.off('data', onData);
      const text = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // HTML or empty
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body });
    };
    socket.on('data', onData);
    socket.resume();
    socket.once('error', fail);
    socket.once('close', () =>
      fail(new Error(`connection closed before a whole response (${buffered.length} bytes: ${buffered.toString('latin1').slice(0, 200)})`)),
    );
  });
}

/** The head of an HTTP/1.1 request, ending with the blank line. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

/** Writes and resolves once the bytes are handed to the kernel (rejects on a reset while writing). */
export function writeAll(socket: net.Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(data, (err) => (err ? reject(err) : resolve())));
}
