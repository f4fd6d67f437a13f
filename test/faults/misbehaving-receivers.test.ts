import { parseWebhooksConfig } from '@mp/webhooks';
import { startCountingReceiver, type CountingReceiver } from './support/receiver.js';
import { reportDuplicates, startFaultPlatform, type FaultPlatform } from './support/platform.js';
import { EVENTS, missing, writeStream } from './support/stream.js';

// ADR 0009: a receiver that hangs past the timeout, one that answers slowly, one that resets
// connections, next to a healthy one, on one stream of 10,000 events. The timeout is shortened
// to 2 s here (MP_WEBHOOK_TIMEOUT_MS); the last test shows that 30 s is the configured default.
const TIMEOUT_MS = 2000;

describe('misbehaving receivers', () => {
  let p: FaultPlatform;
  let healthy: CountingReceiver;
  let slow: CountingReceiver;
  let resetting: CountingReceiver;
  let hanging: CountingReceiver;
  let hangingId: string;

  beforeAll(async () => {
    p = await startFaultPlatform();
    healthy = await startCountingReceiver('healthy');
    // Answers every request, 100 ms late (well inside the timeout).
    slow = await startCountingReceiver('slow', () => ({ delayMs: 100 }));
    // Resets the connection on the first arrival of every 10th event; answers the retry.
    resetting = await startCountingReceiver('resetting', (id, arrival) => ({ reset: arrival === 1 && Number(id.slice(4)) % 10 === 0 }));
    // Never answers.
    hanging = await startCountingReceiver('hanging', () => ({ hang: true }));
    await p.startProjects();
    await p.startWebhooks({ MP_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
    for (const r of [healthy, slow, resetting]) await p.createWebhook(r.name, r.url);
    hangingId = await p.createWebhook(hanging.name, hanging.url);
  });
  afterAll(async () => {
    await p?.stop();
    await Promise.all([healthy, slow, resetting, hanging].map((r) => r?.close()));
  });

  it('delivers everything to the healthy, slow and resetting receivers while one hangs, and the hanging one holds few slots', async () => {
    await writeStream(p, 50);
    await healthy.waitForAccepted(EVENTS, 120_000);
    // The healthy receiver has everything while the hanging one is still far from through its
    // first attempts: it was not waiting behind it.
    const hangingSeenWhenHealthyDone = hanging.arrivals.size;
    const hangingPending = (
      await p.sql<{ n: number }>("SELECT count(*)::int AS n FROM webhooks.deliveries WHERE webhook_id = $1 AND status = 'pending'", [hangingId])
    )[0]!.n;
    await resetting.waitForAccepted(EVENTS, 120_000);
    await slow.waitForAccepted(EVENTS, 150_000);

    for (const r of [healthy, slow, resetting]) expect(missing(r)).toEqual([]);
    expect(hangingSeenWhenHealthyDone).toBeLessThan(EVENTS / 10);
    expect(hangingPending).toBeGreaterThan(EVENTS - EVENTS / 10);
    // 64 attempts at most (its allowance) at the very start, 4 once it is known not to answer.
    expect(hanging.maxOpen()).toBeLessThanOrEqual(64);
    expect(hanging.accepted.size).toBe(0);
    // Every 10th event was reset on its first arrival and delivered when sent again.
    const reset = [...resetting.arrivals].filter(([id]) => Number(id.slice(4)) % 10 === 0);
    expect(reset).toHaveLength(EVENTS / 10);
    expect(reset.filter(([, arrivals]) => arrivals < 2)).toEqual([]);

    const attempts = await p.sql<{ outcome: string; error: string; n: number }>(
      `SELECT a.outcome, a.error, count(*)::int AS n FROM webhooks.delivery_attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id
        WHERE d.webhook_id = $1 GROUP BY 1, 2`,
      [hangingId],
    );
    // Every attempt to it timed out (the 4th one of a delivery makes it failed).
    expect(attempts.filter((a) => a.error !== `timeout after ${TIMEOUT_MS} ms` || !['retry', 'failed'].includes(a.outcome))).toEqual([]);
    expect(attempts.length).toBeGreaterThan(0);
    // Repeats are allowed (at least once) and reported; on a loaded machine an attempt can run
    // past the short timeout and be repeated.
    reportDuplicates('misbehaving receivers', [healthy, slow, resetting, hanging]);
  }, 240_000);

  it('uses the 30 s default timeout when MP_WEBHOOK_TIMEOUT_MS is not set', async () => {
    expect(parseWebhooksConfig({}).MP_WEBHOOK_TIMEOUT_MS).toBe(30_000);
    await p.webhooks!.stop('SIGKILL');
    const proc = await p.startWebhooks();
    const [line] = await proc.waitForOutput(/\{[^\n]*"msg":"webhook delivery settings"[^\n]*\}/);
    expect(JSON.parse(line)).toMatchObject({ timeout_ms: 30_000, per_webhook_concurrency: 64, per_tenant_concurrency: 256, concurrency: 1024 });
  });
});
