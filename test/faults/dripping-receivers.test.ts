import { newId } from '@mp/kit';
import { startCountingReceiver, type CountingReceiver } from './support/receiver.js';
import { startFaultPlatform, type FaultPlatform } from './support/platform.js';
import { until } from './support/stream.js';

// Receivers of one tenant that answer their headers at once and then drip their body a byte a
// second. Each attempt to them is cut at the attempt's time limit and counts as timed out (not
// delivered), and they hold at most the tenant's share of the delivery slots: another tenant's
// webhook gets its deliveries while they drip. The worker has 8 slots here, 4 per webhook and 4
// per tenant: without the tenant's share, three dripping webhooks would hold all 8.
const TIMEOUT_MS = 15_000;
const DRIPPERS = 3;
const EVENTS_A = 10;
const EVENTS_B = 5;

describe('receivers that drip their answers', () => {
  let p: FaultPlatform;
  const drippers: CountingReceiver[] = [];
  let healthy: CountingReceiver;
  const tenantB = newId('tenant');
  const dripperIds: string[] = [];

  beforeAll(async () => {
    p = await startFaultPlatform();
    for (let i = 0; i < DRIPPERS; i++) drippers.push(await startCountingReceiver(`dripping-${i}`, () => ({ drip: true })));
    healthy = await startCountingReceiver('healthy');
    await p.startProjects();
    await p.startWebhooks({
      MP_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      MP_WEBHOOK_CONCURRENCY: '8',
      MP_WEBHOOK_CONCURRENCY_PER_WEBHOOK: '4',
      MP_WEBHOOK_CONCURRENCY_PER_TENANT: '4',
    });
    for (const r of drippers) dripperIds.push(await p.createWebhook(r.name, r.url));
    await p
      .client()
      .createWebhook(
        { name: healthy.name, url: healthy.url, events: ['project.created'], retryPolicy: { maxRetries: 3, retryInterval: 1 } },
        { ...p.ctx, tenantId: tenantB },
      );
  });
  afterAll(async () => {
    await p?.stop();
    await Promise.all([...drippers, healthy].map((r) => r?.close()));
  });

  const openAtDrippers = () => drippers.reduce((n, r) => n + r.open(), 0);
  const attemptsOfA = async () =>
    (
      await p.sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhooks.delivery_attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.tenant_id = $1',
        [p.ctx.tenantId],
      )
    )[0]!.n;

  it("another tenant's webhook is served while one tenant's receivers drip, and the dripping attempts are cut at the time limit", async () => {
    await p.writeEvents(1, EVENTS_A);
    // The dripping receivers hold the tenant's share of the slots, and no more.
    await until(() => openAtDrippers() >= 4, 30_000, "the dripping receivers holding the tenant's share");

    await p.sql(
      `INSERT INTO projects.outbox (event_id, event_type, tenant_id, environment, occurred_at, data)
       SELECT 'evt_' || lpad(n::text, 20, '0'), 'project.created', $3, 'live', now(),
              jsonb_build_object('project_id', 'prj_' || lpad(n::text, 20, '0'), 'project_name', 'Other tenant ' || n)::text
         FROM generate_series($1::int, $2::int) AS n`,
      [1001, 1000 + EVENTS_B, tenantB],
    );
    await healthy.waitForAccepted(EVENTS_B, 60_000);
    // Served while the dripping attempts were all still open: none of them had ended.
    expect(await attemptsOfA()).toBe(0);
    expect(openAtDrippers()).toBe(4);
    expect(Math.max(...drippers.map((r) => r.maxOpen()))).toBeLessThanOrEqual(4);

    // At the time limit the dripping attempts are cut and recorded as timed out, none delivered.
    await until(async () => (await attemptsOfA()) >= 4, TIMEOUT_MS + 30_000, 'the dripping attempts recorded');
    const attempts = await p.sql<{ outcome: string; http_status: number | null; error: string }>(
      'SELECT a.outcome, a.http_status, a.error FROM webhooks.delivery_attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.tenant_id = $1',
      [p.ctx.tenantId],
    );
    for (const a of attempts)
      expect(a).toEqual({
        outcome: 'retry',
        http_status: 200,
        error: `timeout after ${TIMEOUT_MS} ms: the receiver answered 200 but its body did not end in time`,
      });
    expect(await p.sql("SELECT count(*)::int AS n FROM webhooks.deliveries WHERE webhook_id = ANY($1::text[]) AND status = 'delivered'", [dripperIds])).toEqual(
      [{ n: 0 }],
    );
  }, 120_000);
});
