import { appendEvent, OutboxRelay } from '@mp/events';
import { watchingPlans, wholeTableReadsByStatement, type ObservedPlan } from '@mp/testing';
import { logger, startTestProducer, type TestProducer } from './producer.js';

// ADR 0058: the relay prepares its claim and its mark on its own connection. A service that starts
// with an empty outbox runs them there more than five times, and PostgreSQL then keeps a generic
// plan made for an empty table. The plans must still reach rows through the pending index and the
// key once a burst fills the outbox, or every batch of 200 would read the whole table.

const WATCHED = ['outbox_claim', 'outbox_mark'];
const BURST = 3000;

describe('outbox relay plans made while the outbox was empty', () => {
  let producer: TestProducer;

  beforeAll(async () => {
    producer = await startTestProducer();
  });
  afterAll(async () => producer?.close());

  it('reaches rows by key once a burst fills the outbox, with the plans cached before it', async () => {
    const { db, transport } = producer;
    // No autovacuum ANALYZE during the test (it would replace the cached plans); DDL, so first.
    await db.query('ALTER TABLE outbox SET (autovacuum_enabled = false)');
    const observed: ObservedPlan[] = [];
    const relay = new OutboxRelay({ db: watchingPlans(db, { statements: WATCHED, tables: ['outbox'] }, observed), transport, logger });

    // The fresh start: one event at a time, each published by its own claim and mark.
    for (let i = 0; i < 7; i++) {
      await db.transaction((tx) => appendEvent(tx, { type: 'project.created', tenantId: 'ten_1', environment: 'live', data: { project_id: `prj_${i}` } }));
      expect(await relay.drain()).toBe(1);
    }
    for (const statement of WATCHED) expect(observed.filter((o) => o.statement === statement).length).toBeGreaterThan(5);

    // The burst, committed at once.
    await db.query(
      `INSERT INTO outbox (event_id, event_type, tenant_id, environment, occurred_at, data)
       SELECT 'evt_burst_' || g, 'project.created', 'ten_1', 'live', now(), '{"project_id":"prj_burst"}' FROM generate_series(1, $1::int) g`,
      [BURST],
    );
    observed.length = 0;
    expect(await relay.drain()).toBe(BURST);
    expect(await transport.streamMessageCount()).toBe(7 + BURST);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE dispatched_at IS NULL');
    expect(rows[0]!.n).toBe(0);

    expect(observed.filter((o) => o.statement === 'outbox_claim').length).toBeGreaterThanOrEqual(BURST / 200);
    expect(wholeTableReadsByStatement(observed, WATCHED)).toEqual({ outbox_claim: [], outbox_mark: [] });
  });
});
