import { DomainError } from '@mp/errors';
import { newId, processMetrics } from '@mp/kit';
import { connect } from 'nats';
import { startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { verifySignature } from '../src/delivery/sign.js';
import { startTestWebhooks, type TestWebhooks } from './support/service.js';

// Operating webhooks (ADR 0009) at the service's gRPC surface: one delivery with its
// attempts, resend, list filters and pagination, secret rotation, success rate, alarm, metrics.

async function refused(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('operating webhooks', () => {
  let t: TestWebhooks;
  const receivers: HttpsReceiver[] = [];
  const receiver = async (o: Parameters<typeof startHttpsReceiver>[0] = {}) => {
    const r = await startHttpsReceiver({ ...o, contract: false });
    receivers.push(r);
    return r;
  };
  const createHook = async (url: string, events: string[] = ['project.created'], extra: { active?: boolean } = {}) =>
    t.client.createWebhook({ name: `ops ${receivers.length}`, url, events, retryPolicy: { maxRetries: 3, retryInterval: 1 }, ...extra }, t.ctx);
  const deliveriesOf = (webhookId: string, filters: Record<string, string> = {}, limit = 100, cursor = '') =>
    t.client.listDeliveries({ webhookId, page: { limit, cursor }, ...filters }, t.ctx);
  const settled = (webhookId: string, status: string, n = 1) =>
    waitUntil(
      async () => {
        const list = await deliveriesOf(webhookId, { status });
        return list.items.length >= n ? list.items : null;
      },
      { timeoutMs: 15_000, message: `${n} ${status} deliveries expected for ${webhookId}` },
    );

  beforeAll(async () => {
    t = await startTestWebhooks({ statsIntervalMs: 3_600_000, alarmMinFinished: 20 });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t?.stop();
  });
  afterEach(() => t.sql('UPDATE webhooks.webhooks SET active = false'));

  it('stores only events some webhook subscribes to', async () => {
    const r = await receiver();
    const webhookId = (await createHook(r.url, ['report.approved'])).webhook!.id;
    const unwanted = await t.publish('report.rejected', { report_id: 'rpt_1' });
    const wanted = await t.publish('report.approved', { report_id: 'rpt_1' });
    await settled(webhookId, 'delivered');
    await t.consumed();
    const stored = await t.sql<{ event_id: string }>('SELECT event_id FROM webhooks.events WHERE event_id = ANY($1)', [[unwanted.event_id, wanted.event_id]]);
    expect(stored).toEqual([{ event_id: wanted.event_id }]);
  });

  it('reads from the stream the data of large events some webhook subscribes to, and of no other', async () => {
    // Every direct get of an event body is a message on this subject, seen by a plain subscription too.
    const nc = await connect({ servers: t.stream.url });
    const gets: number[] = [];
    const watch = nc.subscribe(`$JS.API.DIRECT.GET.${t.stream.stream}`, { callback: (_err, m) => void gets.push((m.json() as { seq: number }).seq) });
    await nc.flush();
    try {
      const r = await receiver();
      const webhookId = (await createHook(r.url, ['data.created'])).webhook!.id;
      // ~60 KB each: far above what travels in the headers
      const records = Array.from({ length: 600 }, (_, i) => ({ data_id: `dat_${i}`, point_name: 'Punkt ü', values: { dz: i / 3 }, status: 'normal' }));
      const unwanted = await t.publish('data.updated', { project_id: 'prj_1', records });
      const wanted = await t.publish('data.created', { project_id: 'prj_1', project_name: 'Tunnel', records, total_count: 600, abnormal_count: 0 });
      await settled(webhookId, 'delivered');
      await t.consumed();
      const [delivered] = await r.waitFor(1);
      expect(delivered!.json.event_id).toBe(wanted.event_id);
      expect(delivered!.json.data).toEqual(wanted.data);
      const jsm = await nc.jetstreamManager();
      const { state } = await jsm.streams.info(t.stream.stream);
      const seqOf = new Map<string, number>();
      for (let seq = state.first_seq; seq <= state.last_seq; seq++)
        seqOf.set((await jsm.streams.getMessage(t.stream.stream, { seq })).header!.get('Nats-Msg-Id'), seq);
      expect(gets).toEqual([seqOf.get(wanted.event_id)]);
      const stored = await t.sql<{ event_id: string }>('SELECT event_id FROM webhooks.events WHERE event_id = ANY($1)', [[unwanted.event_id, wanted.event_id]]);
      expect(stored).toEqual([{ event_id: wanted.event_id }]);
    } finally {
      watch.unsubscribe();
      await nc.close();
    }
  });

  describe('GET /webhooks/{id}/deliveries/{delivery_id}', () => {
    it('returns the delivery and every attempt behind it, oldest first', async () => {
      const r = await receiver({ replies: [{ status: 500 }], fallback: { status: 204 } });
      const { webhook } = await createHook(r.url);
      await t.publish();
      const [d] = await settled(webhook!.id, 'delivered');
      const detail = await t.client.getDelivery({ webhookId: webhook!.id, deliveryId: d!.deliveryId }, t.ctx);
      expect(detail.delivery).toMatchObject({ deliveryId: d!.deliveryId, status: 'delivered', httpStatus: 204, retryCount: 1, resendCount: 0 });
      expect(detail.attempts).toEqual([
        {
          attempt: 1,
          cycle: 1,
          startedAt: expect.any(String),
          durationMs: expect.any(Number),
          httpStatus: 500,
          outcome: 'retry',
          error: 'receiver answered 500',
          redirects: 0,
          retryAt: expect.any(String),
        },
        { attempt: 2, cycle: 1, startedAt: expect.any(String), durationMs: expect.any(Number), httpStatus: 204, outcome: 'delivered', redirects: 0 },
      ]);
      // The second attempt started at or after the retry time the first one scheduled.
      expect(Date.parse(detail.attempts[1]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(detail.attempts[0]!.retryAt!));
    });

    it('answers 400004 for a malformed id, 404011 for an unknown delivery or one of another webhook, 404009 for another tenant', async () => {
      const r = await receiver();
      const a = (await createHook(r.url)).webhook!;
      const b = (await createHook(r.url)).webhook!;
      await t.publish();
      const [d] = await settled(a.id, 'delivered');
      let e = await refused(t.client.getDelivery({ webhookId: a.id, deliveryId: 'nope' }, t.ctx));
      expect([e.code, e.field]).toEqual(['400004', 'delivery_id']);
      e = await refused(t.client.getDelivery({ webhookId: a.id, deliveryId: newId('delivery') }, t.ctx));
      expect([e.code, e.field]).toEqual(['404011', 'delivery_id']);
      e = await refused(t.client.getDelivery({ webhookId: b.id, deliveryId: d!.deliveryId }, t.ctx));
      expect([e.code, e.field]).toEqual(['404011', 'delivery_id']);
      e = await refused(t.client.getDelivery({ webhookId: a.id, deliveryId: d!.deliveryId }, { ...t.ctx, tenantId: newId('tenant') }));
      expect([e.code, e.field]).toEqual(['404009', 'webhook_id']);
    });
  });

  describe('POST /webhooks/{id}/deliveries/{delivery_id}/resend', () => {
    it('sends the same event again in a new cycle, signed anew, and keeps the history', async () => {
      const r = await receiver();
      const created = await createHook(r.url);
      const webhookId = created.webhook!.id;
      const event = await t.publish();
      const [d] = await settled(webhookId, 'delivered');
      await r.waitFor(1);

      const resent = await t.client.resendDelivery({ webhookId, deliveryId: d!.deliveryId }, t.ctx);
      expect(resent).toMatchObject({ deliveryId: d!.deliveryId, eventId: event.event_id, status: 'pending', retryCount: 0, resendCount: 1 });
      const [, second] = await r.waitFor(2);
      expect(second!.json).toEqual(r.requests[0]!.json);
      expect(second!.headers['x-service-event-id']).toBe(event.event_id);
      expect(
        verifySignature({
          secret: created.secret,
          signatureHeader: second!.headers['x-service-signature'],
          timestampHeader: second!.headers['x-service-timestamp'],
          rawBody: second!.rawBody,
        }),
      ).toBe(true);

      const detail = await waitUntil(async () => {
        const x = await t.client.getDelivery({ webhookId, deliveryId: d!.deliveryId }, t.ctx);
        return x.delivery!.status === 'delivered' ? x : null;
      });
      expect(detail.delivery).toMatchObject({ resendCount: 1, retryCount: 0, httpStatus: 200 });
      expect(detail.attempts.map((a) => [a.cycle, a.attempt, a.outcome])).toEqual([
        [1, 1, 'delivered'],
        [2, 1, 'delivered'],
      ]);
      // Still one delivery for the event.
      expect((await deliveriesOf(webhookId)).items).toHaveLength(1);
    });

    it('gives a failed delivery a fresh retry budget', async () => {
      const r = await receiver({ replies: [{ status: 410 }, { status: 503 }], fallback: { status: 200 } });
      const webhookId = (await createHook(r.url)).webhook!.id;
      await t.publish();
      const [d] = await settled(webhookId, 'failed');
      await t.client.resendDelivery({ webhookId, deliveryId: d!.deliveryId }, t.ctx);
      await settled(webhookId, 'delivered');
      const detail = await t.client.getDelivery({ webhookId, deliveryId: d!.deliveryId }, t.ctx);
      expect(detail.attempts.map((a) => [a.cycle, a.attempt, a.outcome, a.httpStatus])).toEqual([
        [1, 1, 'failed', 410],
        [2, 1, 'retry', 503],
        [2, 2, 'delivered', 200],
      ]);
      expect(detail.delivery).toMatchObject({ status: 'delivered', retryCount: 1, resendCount: 1 });
    });

    it('sends to an inactive webhook (someone asked), refuses a deleted one with 404009 and changes nothing', async () => {
      const r = await receiver();
      const webhookId = (await createHook(r.url)).webhook!.id;
      await t.publish();
      const [d] = await settled(webhookId, 'delivered');
      await t.client.updateWebhook({ id: webhookId, active: false, allProjects: false }, t.ctx);
      await t.client.resendDelivery({ webhookId, deliveryId: d!.deliveryId }, t.ctx);
      await r.waitFor(2);

      await waitUntil(async () => (await deliveriesOf(webhookId, { status: 'delivered' })).items.length === 1);
      await t.client.deleteWebhook({ id: webhookId }, t.ctx);
      const before = await t.sql('SELECT * FROM webhooks.deliveries WHERE id = $1', [d!.deliveryId]);
      const e = await refused(t.client.resendDelivery({ webhookId, deliveryId: d!.deliveryId }, t.ctx));
      expect([e.code, e.field]).toEqual(['404009', 'webhook_id']);
      expect(await t.sql('SELECT * FROM webhooks.deliveries WHERE id = $1', [d!.deliveryId])).toEqual(before);
      const e2 = await refused(t.client.resendDelivery({ webhookId, deliveryId: 'del_bad' }, t.ctx));
      expect(e2.code).toBe('404009');
    });
  });

  describe('GET /webhooks/{id}/deliveries: filters and pagination', () => {
    it('filters by status, event_type and created_at in [from, to), and pages without gaps or repeats', async () => {
      const r = await receiver({ fallback: (req) => ({ status: req.json?.event_type === 'data.abnormal' ? 400 : 200 }) });
      const webhookId = (await createHook(r.url, ['data.created', 'data.abnormal'])).webhook!.id;
      for (let i = 0; i < 30; i++) await t.publish('data.created', { n: i });
      for (let i = 0; i < 15; i++) await t.publish('data.abnormal', { n: i });
      await settled(webhookId, 'delivered', 30);
      await settled(webhookId, 'failed', 15);

      // Deliveries created in the same millisecond are not lost between pages.
      await t.sql('UPDATE webhooks.deliveries SET created_at = $2 WHERE webhook_id = $1', [webhookId, '2026-03-01T08:00:00.000Z']);
      await t.sql("UPDATE webhooks.deliveries SET created_at = created_at + interval '1 hour' WHERE webhook_id = $1 AND event_type = 'data.abnormal'", [
        webhookId,
      ]);

      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; ; page++) {
        const list = await deliveriesOf(webhookId, {}, 20, cursor);
        seen.push(...list.items.map((d) => d.deliveryId));
        if (!list.page!.hasMore) break;
        cursor = list.page!.nextCursor!;
        expect(page).toBeLessThan(5);
      }
      expect(seen).toHaveLength(45);
      expect(new Set(seen).size).toBe(45);

      expect((await deliveriesOf(webhookId, { status: 'failed' })).items.every((d) => d.eventType === 'data.abnormal')).toBe(true);
      expect((await deliveriesOf(webhookId, { eventType: 'data.created' })).items).toHaveLength(30);
      expect((await deliveriesOf(webhookId, { eventType: 'data.created', status: 'failed' })).items).toHaveLength(0);
      expect((await deliveriesOf(webhookId, { from: '2026-03-01T08:30:00Z' })).items).toHaveLength(15);
      expect((await deliveriesOf(webhookId, { to: '2026-03-01T09:00:00Z' })).items).toHaveLength(30);
      expect((await deliveriesOf(webhookId, { from: '2026-03-01T08:00:00Z', to: '2026-03-01T09:00:00.001Z' })).items).toHaveLength(45);
      expect((await deliveriesOf(webhookId, { from: '2026-03-01T10:00:00+02:00', to: '2026-03-01T10:00:00.001+02:00' })).items).toHaveLength(30);

      // Pages of a filtered list keep the filter.
      const first = await deliveriesOf(webhookId, { eventType: 'data.created' }, 20);
      const second = await deliveriesOf(webhookId, { eventType: 'data.created' }, 20, first.page!.nextCursor!);
      expect([first.items.length, second.items.length, second.page!.hasMore]).toEqual([20, 10, false]);
    });

    it.each([
      [{ status: 'done' }, '400001', 'status'],
      [{ eventType: 'data.exploded' }, '400001', 'event_type'],
      [{ from: 'yesterday' }, '400004', 'from'],
      [{ to: '2026-13-01T00:00:00Z' }, '400004', 'to'],
      [{ from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' }, '400003', 'to'],
    ])('refuses %j with %s on %s', async (filters, code, field) => {
      const r = await receiver();
      const webhookId = (await createHook(r.url)).webhook!.id;
      const e = await refused(deliveriesOf(webhookId, filters as Record<string, string>));
      expect([e.code, e.field]).toEqual([code, field]);
      expect(e.suggestion.length).toBeGreaterThan(0);
    });
  });

  describe('POST /webhooks/{id}/rotate-secret', () => {
    const signedWith = (secret: string, req: { headers: Record<string, string | string[] | undefined>; rawBody: string }) =>
      verifySignature({
        secret,
        signatureHeader: req.headers['x-service-signature'],
        timestampHeader: req.headers['x-service-timestamp'],
        rawBody: req.rawBody,
      });
    const switchNow = (webhookId: string) => t.sql("UPDATE webhooks.webhooks SET secret_switch_at = now() - interval '1 second' WHERE id = $1", [webhookId]);

    it('keeps signing with the old secret during the grace period, then with the new one', async () => {
      const r = await receiver();
      const created = await createHook(r.url);
      const webhookId = created.webhook!.id;
      const rotated = await t.client.rotateSecret({ id: webhookId, gracePeriodSeconds: 3600 }, t.ctx);
      expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
      expect(rotated.secret).not.toBe(created.secret);
      const rotation = rotated.webhook!.secretRotation!;
      expect(Date.parse(rotation.newSecretSignsFrom) - Date.parse(rotation.rotatedAt)).toBe(3600_000);
      expect((await t.client.getWebhook({ id: webhookId }, t.ctx)).secretRotation).toEqual(rotation);

      // During the grace period: one signature, the old secret's.
      await t.publish();
      const [during] = await r.waitFor(1);
      expect(signedWith(created.secret, during!)).toBe(true);
      expect(signedWith(rotated.secret, during!)).toBe(false);
      const test = await t.client.testWebhook({ id: webhookId }, t.ctx);
      expect(test.status).toBe('delivered');
      expect(signedWith(created.secret, r.requests[1]!)).toBe(true);

      // After the switch time: the new secret's.
      await switchNow(webhookId);
      await t.publish();
      const [, , after] = await r.waitFor(3);
      expect(signedWith(rotated.secret, after!)).toBe(true);
      expect(signedWith(created.secret, after!)).toBe(false);
      expect((await t.client.getWebhook({ id: webhookId }, t.ctx)).secretRotation).toBeUndefined();

      // Neither secret is stored in clear.
      expect(JSON.stringify(await t.sql('SELECT * FROM webhooks.webhooks WHERE id = $1', [webhookId]))).not.toMatch(
        new RegExp(`${created.secret}|${rotated.secret}`),
      );
    });

    it('grace_period_seconds 0 switches at once; rotating again during a grace period replaces the waiting secret', async () => {
      const r = await receiver();
      const created = await createHook(r.url);
      const webhookId = created.webhook!.id;
      const now = await t.client.rotateSecret({ id: webhookId, gracePeriodSeconds: 0 }, t.ctx);
      expect(now.webhook!.secretRotation).toBeUndefined();
      await t.client.testWebhook({ id: webhookId }, t.ctx);
      expect(signedWith(now.secret, r.requests[0]!)).toBe(true);

      const waiting = await t.client.rotateSecret({ id: webhookId }, t.ctx);
      const defaultGrace = waiting.webhook!.secretRotation!;
      expect(Date.parse(defaultGrace.newSecretSignsFrom) - Date.parse(defaultGrace.rotatedAt)).toBe(86_400_000);
      const replacing = await t.client.rotateSecret({ id: webhookId, gracePeriodSeconds: 60 }, t.ctx);
      await t.client.testWebhook({ id: webhookId }, t.ctx);
      expect(signedWith(now.secret, r.requests[1]!)).toBe(true);
      await switchNow(webhookId);
      await t.client.testWebhook({ id: webhookId }, t.ctx);
      expect(signedWith(replacing.secret, r.requests[2]!)).toBe(true);
      expect(signedWith(waiting.secret, r.requests[2]!)).toBe(false);
    });

    it.each([-1, 604_801])('refuses grace_period_seconds %i with 400003 and changes nothing', async (grace) => {
      const r = await receiver();
      const webhookId = (await createHook(r.url)).webhook!.id;
      const before = await t.sql('SELECT * FROM webhooks.webhooks WHERE id = $1', [webhookId]);
      const e = await refused(t.client.rotateSecret({ id: webhookId, gracePeriodSeconds: grace }, t.ctx));
      expect([e.code, e.field]).toEqual(['400003', 'grace_period_seconds']);
      expect(await t.sql('SELECT * FROM webhooks.webhooks WHERE id = $1', [webhookId])).toEqual(before);
    });
  });

  describe('success rate: on the webhook, as a metric, and as a log alarm below 95 %', () => {
    it('computes delivered / (delivered + failed) over 24 h and alarms once when it falls below 0.95', async () => {
      const good = await receiver({ replies: [{ status: 400 }], fallback: { status: 200 } });
      const bad = await receiver({ replies: Array.from({ length: 10 }, () => ({ status: 200 })), fallback: { status: 422 } });
      const goodId = (await createHook(good.url, ['report.generated'])).webhook!.id;
      const badId = (await createHook(bad.url, ['report.generated'])).webhook!.id;
      for (let i = 0; i < 20; i++) await t.publish('report.generated', { report_id: `rpt_${i}` });
      await waitUntil(
        async () =>
          (
            await t.sql<{ n: number }>("SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status <> 'pending' AND webhook_id = ANY($1)", [
              [goodId, badId],
            ])
          )[0]!.n === 40,
      );

      const goodHook = await t.client.getWebhook({ id: goodId }, t.ctx);
      expect(goodHook.successRate).toBe(0.95);
      expect(goodHook.deliveryStats).toEqual({ windowHours: 24, delivered: 19, failed: 1, pending: 0 });
      const badHook = (await t.client.listWebhooks({ page: { limit: 100, cursor: '' } }, t.ctx)).items.find((w) => w.id === badId)!;
      expect(badHook.successRate).toBe(0.5);
      const unused = await createHook(good.url, ['task.overdue']);
      expect(unused.webhook!.successRate).toBeUndefined();
      expect(unused.webhook!.deliveryStats).toEqual({ windowHours: 24, delivered: 0, failed: 0, pending: 0 });

      t.logs.length = 0;
      await t.service.monitor.refresh();
      await t.service.monitor.refresh();
      const alarms = t.logs.filter((l) => l.alarm === 'webhook_success_rate_low');
      expect(alarms).toHaveLength(1);
      expect(alarms[0]).toMatchObject({
        level: 40,
        webhook_id: badId,
        tenant_id: t.ctx.tenantId,
        success_rate: 0.5,
        delivered: 10,
        failed: 10,
        threshold: 0.95,
        window_hours: 24,
      });
      expect(alarms[0]!.msg).toBe('webhook delivery success rate 50.00% is below 95%');

      // Bounded series: only webhooks below the threshold are named (at most 20), the rest are totals.
      const metrics = await processMetrics()();
      expect(metrics.text).toContain(`mp_webhook_success_rate{webhook_id="${badId}"} 0.5`);
      expect(metrics.text).not.toContain(`webhook_id="${goodId}"`);
      expect(metrics.text).toMatch(/^mp_webhooks_below_success_threshold [1-9]\d*$/m);
      expect(metrics.text).toContain('mp_webhook_success_rate_lowest 0.5');
      expect(metrics.text).toMatch(/^mp_webhook_deliveries_24h\{status="failed"\} [1-9]\d*$/m);
      expect(metrics.text).toMatch(/mp_webhook_attempts_total\{outcome="delivered"\} \d+/);
      expect(metrics.text).toMatch(/mp_process_resident_memory_bytes \d+/);

      // A day later the failures are out of the window: the rate recovers and that is logged too.
      await t.sql("UPDATE webhooks.deliveries SET created_at = created_at - interval '25 hours' WHERE webhook_id = $1 AND status = 'failed'", [badId]);
      await t.service.monitor.refresh();
      expect(t.logs.filter((l) => l.alarm === 'webhook_success_rate_recovered')).toMatchObject([{ level: 30, webhook_id: badId, success_rate: 1 }]);
      expect((await t.client.getWebhook({ id: badId }, t.ctx)).successRate).toBe(1);
    });

    it('does not judge a webhook on fewer finished deliveries than the minimum', async () => {
      const r = await receiver({ fallback: { status: 404 } });
      const webhookId = (await createHook(r.url, ['task.assigned'])).webhook!.id;
      for (let i = 0; i < 3; i++) await t.publish('task.assigned', { task_id: `tsk_${i}` });
      await settled(webhookId, 'failed', 3);
      t.logs.length = 0;
      await t.service.monitor.refresh();
      expect((await t.client.getWebhook({ id: webhookId }, t.ctx)).successRate).toBe(0);
      expect(t.logs.filter((l) => l.alarm && l.webhook_id === webhookId)).toEqual([]);
    });
  });
});
