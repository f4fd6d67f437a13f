import { pino } from 'pino';
import { DeliveryHistoryPurger } from '../src/history-purge.js';
import { startTestWebhooks, type TestWebhooks } from './support/service.js';

// ADR 0021: delivery history does not grow without bound. Finished deliveries past the
// retention go, with their attempts and their event once no delivery refers to it; pending
// deliveries, recent ones and events still referred to stay.

describe('removing delivery history past the retention', () => {
  let t: TestWebhooks;

  beforeAll(async () => {
    t = await startTestWebhooks();
  });
  afterAll(() => t?.stop());

  const DAY = 86_400_000;

  /** Inserts a webhook, events and deliveries (with one attempt each) as rows, `age` days old. */
  async function seed() {
    const hooks = ['whk_purge_a', 'whk_purge_b'];
    for (const id of hooks) {
      await t.sql(
        `INSERT INTO webhooks.webhooks (id, tenant_id, environment, name, url, events, max_retries, retry_interval, secret_sealed, creator_permissions)
         VALUES ($1, $2, 'live', $1, 'https://example.com/hook', '{task.created}', 3, 5, 'sealed', '{system:admin,task:read}')`,
        [id, t.ctx.tenantId],
      );
    }
    const rows: [delivery: string, event: string, hook: string, status: string, ageDays: number][] = [
      // Old and finished: removed (five of them, so the batches of two take three statements).
      ['dlv_old_1', 'evt_old_1', 'whk_purge_a', 'delivered', 40],
      ['dlv_old_2', 'evt_old_2', 'whk_purge_a', 'delivered', 39],
      ['dlv_old_3', 'evt_old_3', 'whk_purge_a', 'failed', 38],
      ['dlv_old_4', 'evt_old_4', 'whk_purge_a', 'delivered', 37],
      ['dlv_old_5', 'evt_old_5', 'whk_purge_b', 'delivered', 36],
      // Old but still pending (a resend, retries to come): kept.
      ['dlv_old_pending', 'evt_old_pending', 'whk_purge_a', 'pending', 45],
      // Recent: kept.
      ['dlv_new_1', 'evt_new_1', 'whk_purge_a', 'delivered', 2],
      // An event fanned out to both webhooks: the old delivery goes, the event stays for the recent one.
      ['dlv_fan_old', 'evt_fan', 'whk_purge_a', 'delivered', 31],
      ['dlv_fan_new', 'evt_fan', 'whk_purge_b', 'delivered', 29],
    ];
    for (const [delivery, event, hook, status, age] of rows) {
      const at = new Date(Date.now() - age * DAY).toISOString();
      await t.sql(
        `INSERT INTO webhooks.events (event_id, event_type, tenant_id, environment, occurred_at, data)
         VALUES ($1, 'task.created', $2, 'live', $3, '{}') ON CONFLICT DO NOTHING`,
        [event, t.ctx.tenantId, at],
      );
      await t.sql(
        `INSERT INTO webhooks.deliveries (id, event_id, webhook_id, tenant_id, environment, event_type, status, attempts, created_at, next_attempt_at)
         VALUES ($1, $2, $3, $4, 'live', 'task.created', $5, 1, $6, CASE WHEN $5 = 'pending' THEN now() + interval '1 hour' END)`,
        [delivery, event, hook, t.ctx.tenantId, status, at],
      );
      await t.sql(
        `INSERT INTO webhooks.delivery_attempts (delivery_id, cycle, attempt, started_at, finished_at, duration_ms, http_status, outcome)
         VALUES ($1, 1, 1, $2, $2, 3, 200, 'delivered')`,
        [delivery, at],
      );
    }
  }

  it('removes finished deliveries older than the retention, their attempts and their orphaned events, in batches', async () => {
    await seed();
    const purger = new DeliveryHistoryPurger(t.database, pino({ level: 'silent' }), { retentionMs: 30 * DAY, batchSize: 2 });

    expect(await purger.purge()).toBe(6);

    const deliveries = await t.sql<{ id: string }>('SELECT id FROM webhooks.deliveries ORDER BY id');
    expect(deliveries.map((r) => r.id)).toEqual(['dlv_fan_new', 'dlv_new_1', 'dlv_old_pending']);
    const attempts = await t.sql<{ delivery_id: string }>('SELECT delivery_id FROM webhooks.delivery_attempts ORDER BY delivery_id');
    expect(attempts.map((r) => r.delivery_id)).toEqual(['dlv_fan_new', 'dlv_new_1', 'dlv_old_pending']);
    const events = await t.sql<{ event_id: string }>('SELECT event_id FROM webhooks.events ORDER BY event_id');
    expect(events.map((r) => r.event_id)).toEqual(['evt_fan', 'evt_new_1', 'evt_old_pending']);

    // Nothing left to remove: a second pass removes nothing.
    expect(await purger.purge()).toBe(0);
  });
});
