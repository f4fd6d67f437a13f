import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { DomainError } from '@mp/errors';
import { startHttpsReceiver, testCertificate, waitUntil, type HttpsReceiver } from '@mp/testing';
import { createDeliveryAgent } from '../src/delivery/agent.js';
import { signatureHeaders } from '../src/delivery/sign.js';
import { sendWebhook, type SendOptions } from '../src/delivery/send.js';
import { assertWebhookUrlAllowed, guardedLookup, isForbiddenAddress } from '../src/delivery/target-guard.js';
import { FORBIDDEN_SAMPLES, urlHost } from './support/ranges.js';
import { startTestWebhooks, type TestWebhooks } from './support/service.js';

// docs/rules.md#webhook-targets: every forbidden range is refused when a webhook is created or changed, when a
// connection is made (after DNS resolution), and on every redirect; DNS rebinding between
// registration and delivery is refused; redirects to plain HTTP are refused.

const body = '{"event_id":"evt_1"}';
let ca: string[];
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  ca = [(await testCertificate()).cert];
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function receiver(o: Parameters<typeof startHttpsReceiver>[0] = {}): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver({ ...o, contract: false });
  cleanups.push(() => r.close());
  return r;
}

/** An HTTPS server on another loopback address (127.0.0.2): a "private" target that must get nothing. */
async function privateTarget(): Promise<{ port: number; hits: () => number }> {
  const tls = await testCertificate();
  let hits = 0;
  const sockets = new Set<net.Socket>();
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (_req, res) => {
    hits++;
    res.end('ok');
  });
  server.on('connection', (s: net.Socket) => {
    hits++;
    sockets.add(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, hits: () => hits };
}

/**
 * The production policy, with exactly the first receiver's address (127.0.0.1) exempted: the
 * first hop is reachable, so what is tested is the check on the redirect that follows.
 */
const exceptFirstHop = (ip: string) => ip !== '127.0.0.1' && isForbiddenAddress(ip);

function options(url: string, extra: Partial<SendOptions> = {}): SendOptions {
  return { url, body, headers: signatureHeaders('whsec_x', 'evt_1', body), timeoutMs: 5000, allowPrivate: false, ca, ...extra };
}

describe('every forbidden range', () => {
  it.each(FORBIDDEN_SAMPLES)('%s (%s): classified forbidden', (_range, ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(FORBIDDEN_SAMPLES)('%s (%s): refused at creation, as a literal and through DNS', async (_range, ip) => {
    for (const [url, resolve] of [
      [`https://${urlHost(ip)}/hook`, async () => ['93.184.216.34']],
      ['https://hooks.example.com/hook', async () => [ip]],
      ['https://hooks.example.com/hook', async () => ['93.184.216.34', ip]],
    ] as const) {
      const err = await assertWebhookUrlAllowed(url, { allowPrivate: false, resolve }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DomainError);
      expect([(err as DomainError).code, (err as DomainError).field]).toEqual(['422103', 'url']);
    }
    await expect(assertWebhookUrlAllowed(`https://${urlHost(ip)}/hook`, { allowPrivate: true })).resolves.toBeUndefined();
  });

  it.each(FORBIDDEN_SAMPLES)('%s (%s): refused at connection, after DNS resolution', async (_range, ip) => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup(false, async () => [ip])('hooks.example.com', { all: true }, (e) => resolve(e)),
    );
    expect(err?.code).toBe('ESSRF');
    const allowed = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup(true, async () => [ip])('hooks.example.com', { all: true }, (e) => resolve(e)),
    );
    expect(allowed).toBeNull();
  });

  it.each(FORBIDDEN_SAMPLES)('%s (%s): refused as a redirect target', async (_range, ip) => {
    const first = await receiver({ replies: [{ status: 302, headers: { location: `https://${urlHost(ip)}/next` } }] });
    const res = await sendWebhook(options(first.url, { isForbidden: exceptFirstHop }));
    expect(res).toMatchObject({ outcome: 'failed', httpStatus: 302, redirects: 1 });
    expect(res.error).toMatch(/^SSRF protection: redirect target .* is a private or reserved address$/);
    expect(first.requests).toHaveLength(1);
  });
});

describe('redirects', () => {
  it('to a private address: refused before any connection, and the private server gets nothing', async () => {
    const target = await privateTarget();
    for (const location of [`https://127.0.0.2:${target.port}/x`, `https://[::ffff:127.0.0.2]:${target.port}/x`, `https://[::ffff:7f00:2]:${target.port}/x`]) {
      const first = await receiver({ replies: [{ status: 307, headers: { location } }] });
      const res = await sendWebhook(options(first.url, { isForbidden: exceptFirstHop }));
      expect(res).toMatchObject({ outcome: 'failed', httpStatus: 307 });
      expect(res.error).toMatch(/SSRF protection/);
    }
    expect(target.hits()).toBe(0);
  });

  it('to a name that resolves to a private address: refused at connect time, the server gets nothing', async () => {
    const target = await privateTarget();
    const first = await receiver({ replies: [{ status: 302, headers: { location: `https://internal.example:${target.port}/x` } }] });
    const resolve = async (host: string) => (host === 'internal.example' ? ['127.0.0.2'] : ['127.0.0.1']);
    const res = await sendWebhook(options(first.url, { isForbidden: exceptFirstHop, resolve }));
    expect(res).toMatchObject({ outcome: 'failed', httpStatus: null });
    expect(res.error).toBe('SSRF protection: ESSRF: refused to connect to internal.example: it resolves to the private or reserved address 127.0.0.2');
    expect(target.hits()).toBe(0);
    // With private targets allowed the same chain reaches the server: the check is what stopped it.
    const again = await receiver({ replies: [{ status: 302, headers: { location: `https://internal.example:${target.port}/x` } }] });
    const open = await sendWebhook(options(again.url, { allowPrivate: true, resolve }));
    expect(open.redirects).toBe(1);
    expect(target.hits()).toBeGreaterThan(0);
  });

  it('on every hop, not only the first: a public-looking second hop redirecting to a private one is refused', async () => {
    const second = await receiver({ replies: [{ status: 302, headers: { location: 'https://169.254.169.254/latest/meta-data/' } }] });
    const first = await receiver({ replies: [{ status: 301, headers: { location: second.url } }] });
    const res = await sendWebhook(options(first.url, { isForbidden: exceptFirstHop }));
    expect(res).toMatchObject({ outcome: 'failed', httpStatus: 302, redirects: 2, finalUrl: 'https://169.254.169.254/latest/meta-data/' });
    expect(second.requests).toHaveLength(1);
  });

  it('to plain http:// is refused, also when private targets are allowed', async () => {
    for (const allowPrivate of [false, true]) {
      const first = await receiver({ replies: [{ status: 302, headers: { location: 'http://hooks.example.com/hook' } }] });
      const res = await sendWebhook(options(first.url, { allowPrivate, isForbidden: exceptFirstHop }));
      expect(res).toMatchObject({ outcome: 'failed', httpStatus: 302, error: 'redirect target is not https: http://hooks.example.com' });
    }
  });
});

describe('DNS rebinding', () => {
  it('a name that was public at creation and resolves privately at delivery is refused, nothing sent', async () => {
    const r = await receiver();
    let answers = 0;
    const rebinding = async () => (++answers === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    const url = `https://rebind.example:${r.port}/hook`;
    await expect(assertWebhookUrlAllowed(url, { allowPrivate: false, resolve: rebinding })).resolves.toBeUndefined();
    const res = await sendWebhook(options(url, { resolve: rebinding }));
    expect(res).toMatchObject({ outcome: 'failed', httpStatus: null });
    expect(res.error).toMatch(/SSRF protection: .*127\.0\.0\.1/);
    expect(answers).toBe(2);
    expect(r.requests).toHaveLength(0);
  });

  it('is checked per connection with the keep-alive agent too', async () => {
    const agent = createDeliveryAgent();
    cleanups.push(() => agent.destroy());
    const r = await receiver();
    const res = await sendWebhook(options(`https://localhost:${r.port}/hook`, { agent }));
    expect(res).toMatchObject({ outcome: 'failed', httpStatus: null });
    expect(res.error).toMatch(/SSRF protection/);
    expect(r.requests).toHaveLength(0);
  });
});

describe('keep-alive agent', () => {
  it('reuses its connections for attempts to the same receiver', async () => {
    const agent = createDeliveryAgent({ ca });
    cleanups.push(() => agent.destroy());
    const r = await receiver();
    for (let i = 0; i < 10; i++) {
      const res = await sendWebhook(options(r.url, { agent, allowPrivate: true }));
      expect(res.outcome).toBe('delivered');
    }
    expect(r.requests).toHaveLength(10);
    // Back in the pool after each attempt: one connection, or two when an attempt starts in the
    // same turn as the previous one ended, before the pool has taken its connection back.
    expect(r.connections).toBeLessThanOrEqual(2);
  });

  it('a pooled connection the receiver closed is replaced at once, without spending a retry', async () => {
    const tls = await testCertificate();
    let requests = 0;
    // Answers the first request of each connection, then drops the connection on the next one
    // (a receiver that closed an idle keep-alive connection the sender still had pooled).
    const server = https.createServer({ cert: tls.cert, key: tls.key, keepAliveTimeout: 60_000 }, (req, res) => {
      requests++;
      const socket = req.socket as net.Socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served > 1) return socket.destroy();
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const agent = createDeliveryAgent({ ca: [tls.cert] });
    cleanups.push(() => agent.destroy());
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    expect((await sendWebhook(options(url, { agent, allowPrivate: true }))).outcome).toBe('delivered');
    // The connection is back in the pool, idle (the case of a receiver closing idle connections),
    // and carries the next attempt.
    await waitUntil(() => (agent.stats[new URL(url).origin] as { free?: number } | undefined)?.free === 1);
    const second = await sendWebhook(options(url, { agent, allowPrivate: true }));
    expect(second).toMatchObject({ outcome: 'delivered', httpStatus: 200 });
    expect(requests).toBe(3);
  });
});

describe('creating and changing webhooks through the service', () => {
  let t: TestWebhooks;
  beforeAll(async () => {
    t = await startTestWebhooks({ allowPrivateTargets: false });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it.each(FORBIDDEN_SAMPLES)('%s (%s): create and update refused with 422103 on url, nothing stored', async (_range, ip) => {
    const url = `https://${urlHost(ip)}/hook`;
    const err = await t.client.createWebhook({ name: 'x', url, events: ['data.created'] }, t.ctx).then(
      () => null,
      (e: unknown) => e as DomainError,
    );
    expect([err?.code, err?.field]).toEqual(['422103', 'url']);
    expect(await t.sql('SELECT id FROM webhooks.webhooks WHERE url = $1', [url])).toEqual([]);
  });

  it('an update to a private URL is refused and the stored URL stays', async () => {
    const created = await t.client.createWebhook({ name: 'public', url: 'https://93.184.216.34/hook', events: ['data.created'] }, t.ctx);
    for (const url of ['https://[::ffff:169.254.169.254]/', 'https://localhost/hook', 'https://10.0.0.1/']) {
      const err = await t.client.updateWebhook({ id: created.webhook!.id, url, allProjects: false }, t.ctx).then(
        () => null,
        (e: unknown) => e as DomainError,
      );
      expect([err?.code, err?.field]).toEqual(['422103', 'url']);
    }
    expect((await t.client.getWebhook({ id: created.webhook!.id }, t.ctx)).url).toBe('https://93.184.216.34/hook');
  });
});
