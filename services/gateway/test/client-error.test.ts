import https from 'node:https';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { createSelfSignedCertificate } from '@mp/kit';
import { answerClientError } from '../src/client-error.js';

// What Node's HTTP parser refuses never reaches Koa; answerClientError answers it with the error
// envelope. Without it Node writes a bare "400 Bad Request" (or 431) with no body.
describe('answers to requests the HTTP parser refuses', () => {
  let server: https.Server;
  let port: number;
  let cert: string;

  beforeAll(async () => {
    const material = await createSelfSignedCertificate();
    cert = material.cert;
    server = https.createServer({ cert: material.cert, key: material.key }, (_req, res) => res.end('{"reached":"app"}'));
    server.on(
      'clientError',
      answerClientError(() => 'https://api.example/v3', 20_000),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Sends raw bytes and reads the whole answer up to the close. */
  const send = (head: Buffer) =>
    new Promise<{ status: number; headers: string; body: any }>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca: cert }, () => socket.write(head));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [headers, body] = text.split('\r\n\r\n');
        resolve({ status: Number(headers!.split(' ')[1]), headers: headers!, body: body ? JSON.parse(body) : null });
      });
    });
  const request = (target: string, header = '') => Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${header}\r\n`, 'latin1');

  it.each([
    ['a NUL in a header value', request('/v3/projects', 'X-API-Key: a\u0000b\r\n'), 400001, 'headers'],
    ['a raw non-ASCII byte in the path', request('/v3/projects/\u00e9'), 400001, 'path'],
    ['a head over 16 KB', request('/v3/projects', `If-Match: ${'x'.repeat(20_000)}\r\n`), 400003, 'headers'],
  ])('answers %s with the envelope', async (_name, head, code, field) => {
    const res = await send(head);
    expect({ status: res.status, code: res.body?.code, field: res.body?.data?.field }).toEqual({ status: 400, code, field });
    expect(res.body.meta.documentation_url).toBe(`https://api.example/v3/errors/${code}`);
    expect(res.body.data.suggestion.length).toBeGreaterThan(0);
    expect(res.headers).toContain(`X-Request-Id: ${res.body.meta.request_id}`);
    expect(res.headers).toContain('Content-Type: application/json; charset=utf-8');
  });

  it('leaves well-formed requests to the application', async () => {
    expect((await send(request('/v3/projects?q=%00', 'X-A: \u00e9\r\n'))).body).toEqual({ reached: 'app' });
  });
});
