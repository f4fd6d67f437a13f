import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startHttpsReceiver, testCertificate, type HttpsReceiver, type ReceiverReply } from '@mp/testing';
import { signatureHeaders, verifySignature } from '../src/delivery/sign.js';
import { sendWebhook, type SendOptions } from '../src/delivery/send.js';

const secret = 'whsec_send_test';
const body = JSON.stringify({
  event_id: 'evt_1',
  event_type: 'data.created',
  timestamp: '2024-01-01T00:00:00Z',
  webhook_id: 'whk_1',
  data: { ok: true, text: 'π ≈ 3.14' },
});

let ca: string[];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  ca = [(await testCertificate()).cert];
});

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function receiver(replies: ReceiverReply[] = [], fallback: ReceiverReply = { status: 200 }): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver({ replies, fallback, contract: false });
  cleanups.push(() => r.close());
  return r;
}

function options(url: string, extra: Partial<SendOptions> = {}): SendOptions {
  return { url, body, headers: signatureHeaders(secret, 'evt_1', body), timeoutMs: 10_000, allowPrivate: true, ca, ...extra };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** A raw HTTPS server for behaviours the scripted receiver cannot produce. */
async function rawHttpsServer(handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const tls = await testCertificate();
  const server = https.createServer({ cert: tls.cert, key: tls.key }, handler);
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `https://127.0.0.1:${port}/hook`, port };
}

describe('sendWebhook: status handling', () => {
  it.each([200, 201, 202, 204])('%i → delivered', async (status) => {
    const r = await receiver([{ status }]);
    const res = await sendWebhook(options(r.url));
    expect(res).toEqual({ outcome: 'delivered', httpStatus: status, durationMs: expect.any(Number), error: null, redirects: 0, finalUrl: r.url });
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
    expect(res.durationMs).toBeLessThan(5000);
    expect(r.requests).toHaveLength(1);
  });

  it('posts the body exactly as signed with the signature headers', async () => {
    const r = await receiver();
    const headers = signatureHeaders(secret, 'evt_1', body);
    await sendWebhook(options(r.url, { headers }));
    const [req] = r.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hook');
    expect(req.rawBody).toBe(body);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('MonitoringPlatform-Webhooks/3');
    expect(req.headers['x-service-event-id']).toBe('evt_1');
    expect(req.headers['x-service-signature']).toBe(headers['x-service-signature']);
    expect(req.headers['x-service-timestamp']).toBe(headers['x-service-timestamp']);
    expect(req.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(
      verifySignature({
        secret,
        signatureHeader: req.headers['x-service-signature'],
        timestampHeader: req.headers['x-service-timestamp'],
        rawBody: req.rawBody,
      }),
    ).toBe(true);
  });

  it.each([400, 404, 410, 422])('%i → failed without retry', async (status) => {
    const r = await receiver([{ status, body: 'nope' }]);
    const res = await sendWebhook(options(r.url));
    expect(res.outcome).toBe('failed');
    expect(res.httpStatus).toBe(status);
    expect(res.error).toBe(`receiver answered ${status}`);
    expect(r.requests).toHaveLength(1);
  });

  it.each([500, 502, 503])('%i → retry', async (status) => {
    const r = await receiver([{ status }]);
    const res = await sendWebhook(options(r.url));
    expect(res.outcome).toBe('retry');
    expect(res.httpStatus).toBe(status);
    expect(res.error).toBe(`receiver answered ${status}`);
  });
});

describe('sendWebhook: redirects', () => {
  it('follows 302 → 200 and re-posts the identical body and headers', async () => {
    const final = await receiver([{ status: 200 }]);
    const first = await receiver([{ status: 302, headers: { location: final.url + '?from=first' } }]);
    const res = await sendWebhook(options(first.url));
    expect(res.outcome).toBe('delivered');
    expect(res.httpStatus).toBe(200);
    expect(res.redirects).toBe(1);
    expect(res.finalUrl).toBe(final.url + '?from=first');
    expect(first.requests).toHaveLength(1);
    expect(final.requests).toHaveLength(1);
    const [a] = first.requests;
    const [b] = final.requests;
    expect(b.method).toBe('POST');
    expect(b.path).toBe('/hook?from=first');
    expect(b.rawBody).toBe(a.rawBody);
    expect(b.rawBody).toBe(body);
    for (const h of ['content-type', 'user-agent', 'x-service-signature', 'x-service-timestamp', 'x-service-event-id', 'content-length']) {
      expect(b.headers[h]).toBe(a.headers[h]);
    }
  });

  it('resolves a relative Location against the current URL', async () => {
    const r = await receiver([{ status: 307, headers: { location: 'next' } }, { status: 308, headers: { location: '/final' } }, { status: 204 }]);
    const res = await sendWebhook(options(r.url));
    expect(res.outcome).toBe('delivered');
    expect(res.httpStatus).toBe(204);
    expect(res.redirects).toBe(2);
    expect(r.requests.map((q) => q.path)).toEqual(['/hook', '/next', '/final']);
    expect(r.requests.every((q) => q.method === 'POST' && q.rawBody === body)).toBe(true);
    expect(res.finalUrl).toBe(`https://127.0.0.1:${r.port}/final`);
  });

  it('follows a chain of 3 redirects', async () => {
    const r = await receiver([
      { status: 301, headers: { location: '/r1' } },
      { status: 302, headers: { location: '/r2' } },
      { status: 303, headers: { location: '/r3' } },
      { status: 201 },
    ]);
    const res = await sendWebhook(options(r.url));
    expect(res.outcome).toBe('delivered');
    expect(res.httpStatus).toBe(201);
    expect(res.redirects).toBe(3);
    expect(r.requests).toHaveLength(4);
  });

  it('fails after more than 3 redirects', async () => {
    const r = await receiver([], { status: 302, headers: { location: '/again' } });
    const res = await sendWebhook(options(r.url));
    expect(res.outcome).toBe('failed');
    expect(res.error).toBe('too many redirects');
    expect(res.httpStatus).toBe(302);
    expect(res.redirects).toBe(3);
    expect(r.requests).toHaveLength(4);
  });

  it('honours maxRedirects', async () => {
    const r = await receiver([{ status: 302, headers: { location: '/r1' } }, { status: 200 }]);
    const res = await sendWebhook(options(r.url, { maxRedirects: 0 }));
    expect(res.outcome).toBe('failed');
    expect(res.error).toBe('too many redirects');
    expect(r.requests).toHaveLength(1);
  });

  it('refuses a redirect to http://', async () => {
    const plain = await receiver();
    const r = await receiver([{ status: 302, headers: { location: `http://127.0.0.1:${plain.port}/hook` } }]);
    const res = await sendWebhook(options(r.url));
    expect(res.outcome).toBe('failed');
    expect(res.error).toMatch(/redirect target is not https/);
    expect(res.httpStatus).toBe(302);
    expect(res.finalUrl).toBe(`http://127.0.0.1:${plain.port}/hook`);
    expect(plain.requests).toHaveLength(0);
  });

  it('keeps at most 500 characters of an error that quotes what the receiver sent', async () => {
    const host = `${'a'.repeat(8000)}.example`;
    const r = await receiver([{ status: 302, headers: { location: `ftp://${host}/hook` } }]);
    const res = await sendWebhook(options(r.url));
    expect(res.outcome).toBe('failed');
    expect(res.error).toMatch(/^redirect target is not https: ftp:\/\/a+…$/);
    expect(res.error).toHaveLength(500);
  });

  it('fails on a 3xx without Location', async () => {
    const r = await receiver([{ status: 302 }]);
    const res = await sendWebhook(options(r.url));
    expect(res.outcome).toBe('failed');
    expect(res.httpStatus).toBe(302);
    expect(res.error).toMatch(/without a Location/);
  });
});

describe('sendWebhook: timeouts and network errors', () => {
  it('a receiver that never answers → retry with a timeout error, within the time limit', async () => {
    const r = await receiver([{ status: 200, hang: true }]);
    const t0 = Date.now();
    const res = await sendWebhook(options(r.url, { timeoutMs: 500 }));
    const elapsed = Date.now() - t0;
    expect(res.outcome).toBe('retry');
    expect(res.httpStatus).toBeNull();
    expect(res.error).toBe('timeout after 500 ms');
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1000);
    expect(res.durationMs).toBeGreaterThanOrEqual(450);
    expect(res.durationMs).toBeLessThan(1000);
    expect(r.requests).toHaveLength(1);
  });

  it('slow response headers → retry (timeout)', async () => {
    const r = await receiver([{ status: 200, delayMs: 2000 }]);
    const t0 = Date.now();
    const res = await sendWebhook(options(r.url, { timeoutMs: 500 }));
    expect(res.outcome).toBe('retry');
    expect(res.error).toMatch(/timeout/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('the time limit covers the whole attempt including redirects', async () => {
    const r = await receiver([
      { status: 302, headers: { location: '/r1' }, delayMs: 300 },
      { status: 200, delayMs: 400 },
    ]);
    const t0 = Date.now();
    const res = await sendWebhook(options(r.url, { timeoutMs: 500 }));
    expect(res.outcome).toBe('retry');
    expect(res.error).toBe('timeout after 500 ms');
    expect(res.redirects).toBe(1);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('a server that accepts TCP but never does TLS → retry (timeout)', async () => {
    const sockets = new Set<net.Socket>();
    const srv = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          srv.close(() => resolve());
        }),
    );
    const port = (srv.address() as AddressInfo).port;
    const t0 = Date.now();
    const res = await sendWebhook(options(`https://127.0.0.1:${port}/hook`, { timeoutMs: 500 }));
    expect(res.outcome).toBe('retry');
    expect(res.error).toBe('timeout after 500 ms');
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('connection refused → retry', async () => {
    const port = await closedPort();
    const res = await sendWebhook(options(`https://127.0.0.1:${port}/hook`));
    expect(res.outcome).toBe('retry');
    expect(res.httpStatus).toBeNull();
    expect(res.error).toMatch(/ECONNREFUSED/);
  });

  it('connection reset before an answer → retry', async () => {
    const { url } = await rawHttpsServer((req) => req.socket.destroy());
    const res = await sendWebhook(options(url));
    expect(res.outcome).toBe('retry');
    expect(res.httpStatus).toBeNull();
    expect(res.error).toMatch(/ECONNRESET|other side closed/);
  });

  it('an untrusted certificate (TLS error) → retry', async () => {
    const r = await receiver();
    const res = await sendWebhook(options(r.url, { ca: undefined }));
    expect(res.outcome).toBe('retry');
    expect(res.httpStatus).toBeNull();
    expect(res.error).toMatch(/certificate/i);
    expect(r.requests).toHaveLength(0);
  });

  it('DNS failure → retry', async () => {
    const res = await sendWebhook(options('https://does-not-exist.invalid/hook'));
    expect(res.outcome).toBe('retry');
    expect(res.httpStatus).toBeNull();
    expect(res.error).toMatch(/ENOTFOUND/);
  });

  it('does not wait for an endless response body', async () => {
    const { url } = await rawHttpsServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('error', () => undefined);
      pump();
    });
    const t0 = Date.now();
    const res = await sendWebhook(options(url, { timeoutMs: 5000 }));
    expect(res.outcome).toBe('delivered');
    expect(res.httpStatus).toBe(200);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a receiver that answers its headers and then drips its body is cut at the time limit: the attempt timed out, it is not delivered', async () => {
    const { url } = await rawHttpsServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('x')), 100);
      res.on('close', () => clearInterval(drip));
      res.on('error', () => undefined);
    });
    const res = await sendWebhook(options(url, { timeoutMs: 500 }));
    expect(res).toMatchObject({
      outcome: 'retry',
      httpStatus: 200,
      error: 'timeout after 500 ms: the receiver answered 200 but its body did not end in time',
      timedOut: true,
    });
  });
});

describe('sendWebhook: SSRF protection', () => {
  it('with allowPrivate false, https://127.0.0.1 is refused and the receiver gets nothing', async () => {
    const r = await receiver();
    const res = await sendWebhook(options(r.url, { allowPrivate: false }));
    expect(res.outcome).toBe('failed');
    expect(res.httpStatus).toBeNull();
    expect(res.error).toMatch(/SSRF/);
    expect(r.requests).toHaveLength(0);
  });

  it('with allowPrivate false, a name resolving to 127.0.0.1 is refused at connect time', async () => {
    const r = await receiver();
    const res = await sendWebhook(options(`https://localhost:${r.port}/hook`, { allowPrivate: false }));
    expect(res.outcome).toBe('failed');
    expect(res.httpStatus).toBeNull();
    expect(res.error).toMatch(/SSRF/);
    expect(res.error).toMatch(/127\.0\.0\.1/);
    expect(r.requests).toHaveLength(0);
  });

  it('with allowPrivate true the same name is delivered', async () => {
    const r = await receiver();
    const res = await sendWebhook(options(`https://localhost:${r.port}/hook`));
    expect(res.outcome).toBe('delivered');
    expect(r.requests).toHaveLength(1);
  });

  it('refuses a non-https URL even with allowPrivate true', async () => {
    const r = await receiver();
    const res = await sendWebhook(options(`http://127.0.0.1:${r.port}/hook`));
    expect(res.outcome).toBe('failed');
    expect(res.error).toMatch(/not https/);
    expect(r.requests).toHaveLength(0);
  });
});
