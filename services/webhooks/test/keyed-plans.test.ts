import { startHttpsReceiver, waitUntil, watchingPlans, wholeTableReadsByStatement, type HttpsReceiver, type ObservedPlan } from '@mp/testing';
import { startTestWebhooks, type TestWebhooks } from './support/service.js';

// ADR 0058: a webhooks service that starts on empty tables prepares its claim, its
// outcome record and its ingest statement there, and after five executions PostgreSQL keeps a
// generic plan made for empty tables: sequential scans. Nothing replaces that plan when a backlog
// fills the tables (until an ANALYZE), so every claim then read all of `deliveries` and `events`:
// 100,000 pending deliveries went out at 676/s (bench/webhooks). The test makes the same start
// (plans cached while the tables are empty), adds a backlog, and asks PostgreSQL, on the very
// connection and for the very prepared statement, which plan it runs now.

const WATCHED = ['webhooks_claim', 'webhooks_record_attempts', 'webhooks_ingest'];
const BIG_TABLES = ['deliveries', 'events', 'delivery_attempts'];
const BACKLOG = 3000;

describe('delivery plans made while the tables were empty (ADR 0058)', () => {
  let t: TestWebhooks;
  let receiver: HttpsReceiver;
  const observed: ObservedPlan[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver({ contract: false });
    t = await startTestWebhooks({}, { wrapDatabase: (db) => watchingPlans(db, { statements: WATCHED, tables: BIG_TABLES }, observed) });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  const delivered = (webhookId: string) =>
    t.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE webhook_id = $1 AND status = 'delivered'`, [webhookId]).then((r) => r[0]!.n);

  it('reaches rows by key once a backlog fills the tables, with the plans cached before it', async () => {
    // No autovacuum ANALYZE during the test: it would replace the cached plans, as it does
    // eventually in production, a minute or more into a burst. (DDL, so before any plan is cached.)
    for (const table of BIG_TABLES) await t.sql(`ALTER TABLE webhooks.${table} SET (autovacuum_enabled = false)`);
    const { webhook } = await t.client.createWebhook({ name: 'fresh start', url: receiver.url, events: ['project.created'] }, t.ctx);

    // The fresh start: events one at a time, so that each statement runs more than five times on
    // nearly empty tables and PostgreSQL settles on a generic plan for it.
    for (let i = 1; i <= 7; i++) {
      await t.publish();
      await waitUntil(async () => (await delivered(webhook!.id)) === i);
    }
    for (const statement of WATCHED) expect(observed.filter((o) => o.statement === statement).length).toBeGreaterThan(5);

    // A burst: a backlog of due deliveries, then more events through the stream.
    await t.sql(
      `WITH e AS (
         INSERT INTO webhooks.events (event_id, event_type, tenant_id, environment, occurred_at, data)
         SELECT 'evt_backlog_' || g, 'project.created', $2, 'live', now(), jsonb_build_object('n', g) FROM generate_series(1, $3::int) g RETURNING event_id
       )
       INSERT INTO webhooks.deliveries (id, event_id, webhook_id, tenant_id, environment, event_type, status, next_attempt_at)
       SELECT 'dlv_backlog_' || substr(event_id, 13), event_id, $1, $2, 'live', 'project.created', 'pending', now() FROM e`,
      [webhook!.id, t.ctx.tenantId, BACKLOG],
    );
    observed.length = 0;
    for (let i = 0; i < 3; i++) await t.publish();
    await waitUntil(async () => (await delivered(webhook!.id)) === 7 + BACKLOG + 3, { timeoutMs: 60_000 });
    expect(receiver.requests.length).toBe(7 + BACKLOG + 3);

    for (const statement of WATCHED) expect(observed.filter((o) => o.statement === statement).length).toBeGreaterThan(0);
    // Every plan the statements ran with during the backlog, by statement: none reads a table whole.
    expect(wholeTableReadsByStatement(observed, WATCHED)).toEqual({ webhooks_claim: [], webhooks_record_attempts: [], webhooks_ingest: [] });
  });
});
