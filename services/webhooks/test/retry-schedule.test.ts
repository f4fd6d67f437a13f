import { startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { nextStep, retryDelaySeconds, type ClaimedDelivery } from '../src/attempt.js';
import type { AttemptResult } from '../src/delivery/send.js';
import { startTestWebhooks, type TestWebhooks } from './support/service.js';

// docs/rules.md#delivery-outcomes and docs/rules.md#retry-policy, to the second: the schedule is asserted on
// the stored next_attempt_at values; the test then makes each retry due at once instead of
// waiting 5 + 25 + 125 seconds.

interface AttemptRow {
  attempt: number;
  cycle: number;
  outcome: string;
  http_status: number | null;
  error: string | null;
  redirects: number;
  finished_at: string;
  retry_at: string | null;
}
interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  http_status: number | null;
  error: string | null;
}

describe('retry schedule and status handling of the delivery worker', () => {
  let t: TestWebhooks;
  const receivers: HttpsReceiver[] = [];
  const receiver = async (o: Parameters<typeof startHttpsReceiver>[0]) => {
    const r = await startHttpsReceiver({ ...o, contract: false });
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await startTestWebhooks({ timeoutMs: 700 });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t?.stop();
  });
  // Each test's events go to its own webhook only.
  afterEach(() => t.sql('UPDATE webhooks.webhooks SET active = false'));

  async function hook(url: string, retryPolicy?: { maxRetries: number; retryInterval: number }) {
    const created = await t.client.createWebhook({ name: 'schedule', url, events: ['project.created'], ...(retryPolicy ? { retryPolicy } : {}) }, t.ctx);
    return created.webhook!.id;
  }
  const deliveryOf = async (webhookId: string) =>
    waitUntil(
      async () =>
        (
          await t.sql<DeliveryRow>('SELECT id, status, attempts, next_attempt_at, http_status, error FROM webhooks.deliveries WHERE webhook_id = $1', [
            webhookId,
          ])
        )[0],
    );
  const attemptRow = (deliveryId: string, n: number) =>
    waitUntil(
      async () =>
        (
          await t.sql<AttemptRow>(
            'SELECT attempt, cycle, outcome, http_status, error, redirects, finished_at, retry_at FROM webhooks.delivery_attempts WHERE delivery_id = $1 AND attempt = $2',
            [deliveryId, n],
          )
        )[0],
      { timeoutMs: 10_000, message: `attempt ${n} of ${deliveryId} was not recorded` },
    );
  const settled = (deliveryId: string, status: string) =>
    waitUntil(async () => (await t.sql<DeliveryRow>('SELECT * FROM webhooks.deliveries WHERE id = $1 AND status = $2', [deliveryId, status]))[0], {
      timeoutMs: 10_000,
    });
  /** Makes a scheduled retry due now, so the test need not wait the back-off out. */
  const fastForward = (deliveryId: string) =>
    t.sql("UPDATE webhooks.deliveries SET next_attempt_at = now() WHERE id = $1 AND status = 'pending'", [deliveryId]);

  it('5xx: retries after 5 s, 25 s and 125 s by default, then marks the delivery failed', async () => {
    const r = await receiver({ fallback: { status: 503 } });
    const webhookId = await hook(r.url);
    const event = await t.publish();
    const d = await deliveryOf(webhookId);
    for (const [n, waitSeconds] of [
      [1, 5],
      [2, 25],
      [3, 125],
    ] as const) {
      const a = await attemptRow(d.id, n);
      expect(a).toMatchObject({ outcome: 'retry', http_status: 503, error: 'receiver answered 503', cycle: 1 });
      expect(Date.parse(a.retry_at!) - Date.parse(a.finished_at)).toBe(waitSeconds * 1000);
      const now = (await t.sql<DeliveryRow>('SELECT * FROM webhooks.deliveries WHERE id = $1', [d.id]))[0]!;
      expect(now).toMatchObject({ status: 'pending', attempts: n, http_status: 503 });
      expect(now.next_attempt_at).toBe(a.retry_at);
      expect(r.requests).toHaveLength(n);
      await fastForward(d.id);
    }
    const a4 = await attemptRow(d.id, 4);
    expect(a4).toMatchObject({ outcome: 'failed', http_status: 503, retry_at: null });
    const failed = await settled(d.id, 'failed');
    expect(failed).toMatchObject({ attempts: 4, next_attempt_at: null, http_status: 503 });
    // Every attempt carried the same event and body.
    expect(new Set(r.requests.map((q) => q.rawBody)).size).toBe(1);
    expect(r.requests[0]!.json.event_id).toBe(event.event_id);

    const record = (await t.client.listDeliveries({ webhookId, page: { limit: 10, cursor: '' } }, t.ctx)).items[0]!;
    expect(record).toMatchObject({ status: 'failed', retryCount: 3, httpStatus: 503, error: 'receiver answered 503' });
    expect(record.failedAt).toBeDefined();
  });

  it('retry_interval scales the schedule: 2 s → 2 s, 10 s, 50 s', async () => {
    const r = await receiver({ fallback: { status: 500 } });
    const webhookId = await hook(r.url, { maxRetries: 3, retryInterval: 2 });
    await t.publish();
    const d = await deliveryOf(webhookId);
    for (const [n, waitSeconds] of [
      [1, 2],
      [2, 10],
      [3, 50],
    ] as const) {
      const a = await attemptRow(d.id, n);
      expect(Date.parse(a.retry_at!) - Date.parse(a.finished_at)).toBe(waitSeconds * 1000);
      await fastForward(d.id);
    }
    expect((await attemptRow(d.id, 4)).outcome).toBe('failed');
  });

  it('a time-out is retried like a 5xx', async () => {
    const r = await receiver({ fallback: { status: 200, hang: true } });
    const webhookId = await hook(r.url);
    await t.publish();
    const d = await deliveryOf(webhookId);
    const a = await attemptRow(d.id, 1);
    expect(a).toMatchObject({ outcome: 'retry', http_status: null, error: 'timeout after 700 ms' });
    expect(Date.parse(a.retry_at!) - Date.parse(a.finished_at)).toBe(5000);
  });

  it.each([400, 401, 404, 410, 422, 429])('%i: failed at once, never retried', async (status) => {
    const r = await receiver({ fallback: { status } });
    const webhookId = await hook(r.url);
    await t.publish();
    const d = await deliveryOf(webhookId);
    const failed = await settled(d.id, 'failed');
    expect(failed).toMatchObject({ attempts: 1, http_status: status, next_attempt_at: null, error: `receiver answered ${status}` });
    expect(await attemptRow(d.id, 1)).toMatchObject({ outcome: 'failed', http_status: status, retry_at: null });
    expect(r.requests).toHaveLength(1);
  });

  it.each([200, 201, 204])('%i: delivered, no retry', async (status) => {
    const r = await receiver({ fallback: { status } });
    const webhookId = await hook(r.url);
    await t.publish();
    const d = await deliveryOf(webhookId);
    expect(await settled(d.id, 'delivered')).toMatchObject({ attempts: 1, http_status: status, error: null, next_attempt_at: null });
  });

  it('3xx: follows 3 redirects and the final answer decides', async () => {
    const final = await receiver({ fallback: { status: 200 } });
    const hop3 = await receiver({ fallback: { status: 307, headers: { location: final.url } } });
    const hop2 = await receiver({ fallback: { status: 302, headers: { location: hop3.url } } });
    const hop1 = await receiver({ fallback: { status: 301, headers: { location: hop2.url } } });
    const webhookId = await hook(hop1.url);
    await t.publish();
    const d = await deliveryOf(webhookId);
    expect(await settled(d.id, 'delivered')).toMatchObject({ http_status: 200 });
    expect(await attemptRow(d.id, 1)).toMatchObject({ outcome: 'delivered', redirects: 3 });
    expect(final.requests).toHaveLength(1);
  });

  it('3xx: a 4th redirect is not followed; the delivery fails without retry', async () => {
    const never = await receiver({ fallback: { status: 200 } });
    const hops: HttpsReceiver[] = [];
    let next = never.url;
    for (let i = 0; i < 4; i++) {
      const hop = await receiver({ fallback: { status: 302, headers: { location: next } } });
      hops.unshift(hop);
      next = hop.url;
    }
    const webhookId = await hook(hops[0]!.url);
    await t.publish();
    const d = await deliveryOf(webhookId);
    expect(await settled(d.id, 'failed')).toMatchObject({ attempts: 1, http_status: 302, error: 'too many redirects' });
    expect(await attemptRow(d.id, 1)).toMatchObject({ outcome: 'failed', redirects: 3, retry_at: null });
    expect(hops.map((h) => h.requests.length)).toEqual([1, 1, 1, 1]);
    expect(never.requests).toHaveLength(0);
  });

  it('max_retries 0: the first 5xx is final', async () => {
    const r = await receiver({ fallback: { status: 500 } });
    const webhookId = await hook(r.url, { maxRetries: 0, retryInterval: 5 });
    await t.publish();
    const d = await deliveryOf(webhookId);
    expect(await settled(d.id, 'failed')).toMatchObject({ attempts: 1, http_status: 500 });
  });
});

describe('nextStep (the rule the worker records)', () => {
  const delivery = (attempts: number, maxRetries = 3, retryInterval = 5): ClaimedDelivery => ({
    id: 'del_x',
    attempts,
    cycle: 1,
    event_id: 'evt_x',
    event_type: 'project.created',
    occurred_at: '2026-01-01T00:00:00.000Z',
    data: {},
    webhook_id: 'whk_x',
    tenant_id: 'tnt_x',
    url: 'https://example.com',
    secret_sealed: '',
    max_retries: maxRetries,
    retry_interval: retryInterval,
    active: true,
    deleted: false,
    traceparent: null,
  });
  const result = (outcome: AttemptResult['outcome'], httpStatus: number | null): AttemptResult => ({
    outcome,
    httpStatus,
    durationMs: 12,
    error: null,
    redirects: 0,
    finalUrl: '',
  });
  const finishedAt = new Date('2026-03-01T08:00:00.000Z');

  it('retry n waits retry_interval × 5^(n-1) seconds after the attempt ended', () => {
    expect([1, 2, 3].map((n) => retryDelaySeconds(5, n))).toEqual([5, 25, 125]);
    expect(nextStep({ delivery: delivery(0), finishedAt, result: result('retry', 500), allowRetry: true })).toEqual({
      attempt: 1,
      status: 'pending',
      nextAttemptAt: new Date('2026-03-01T08:00:05.000Z'),
    });
    expect(nextStep({ delivery: delivery(1), finishedAt, result: result('retry', 500), allowRetry: true }).nextAttemptAt).toEqual(
      new Date('2026-03-01T08:00:25.000Z'),
    );
    expect(nextStep({ delivery: delivery(2), finishedAt, result: result('retry', null), allowRetry: true }).nextAttemptAt).toEqual(
      new Date('2026-03-01T08:02:05.000Z'),
    );
    expect(nextStep({ delivery: delivery(3), finishedAt, result: result('retry', 500), allowRetry: true })).toEqual({
      attempt: 4,
      status: 'failed',
      nextAttemptAt: null,
    });
  });

  it('test events (allowRetry false) and 4xx never retry; 2xx is delivered', () => {
    expect(nextStep({ delivery: delivery(0), finishedAt, result: result('retry', 503), allowRetry: false }).status).toBe('failed');
    expect(nextStep({ delivery: delivery(0), finishedAt, result: result('failed', 404), allowRetry: true }).status).toBe('failed');
    expect(nextStep({ delivery: delivery(2), finishedAt, result: result('delivered', 204), allowRetry: true })).toEqual({
      attempt: 3,
      status: 'delivered',
      nextAttemptAt: null,
    });
  });
});
