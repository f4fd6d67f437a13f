import type { Database, Queryable, QueryOptions } from '@mp/db';
import { startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { startTestWebhooks, type TestWebhooks } from './support/service.js';

// ADR 0021, 0058: delivery collapsed to ~600/s once the deliveries table held history. The claim's
// estimated cost grows with the table (ADR 0021) and, past jit_above_cost, PostgreSQL JIT-compiled
// the claim at every execution: ~20–25 ms of compilation for ~4 ms of work. In CI the table cannot
// be filled with a million rows, so the test lowers jit_above_cost to 0 instead: every plan is then
// over the threshold, as the claim's is with history, and the claim must still run without JIT.

const CLAIM_STATEMENT = 'webhooks_claim';
const RECORD_STATEMENT = 'webhooks_record_attempts';

/**
 * A database that, before each run of the watched statements (the claim by default), asks
 * PostgreSQL (same connection settings, same transaction if any) how it would run it.
 */
function explainingClaims(db: Database, plans: unknown[], statements = [CLAIM_STATEMENT]): Database {
  const watch = (q: Queryable): Queryable => ({
    async query<R>(sql: string, params?: unknown[], opts?: QueryOptions) {
      if (opts?.prepare && statements.includes(opts.prepare)) {
        const { rows } = await q.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
        plans.push(rows[0]!['QUERY PLAN']);
      }
      return q.query<R>(sql, params, opts);
    },
  });
  return {
    ...db,
    query: watch(db).query,
    transaction: (fn) => db.transaction((tx) => fn(watch(tx))),
    reserve: (max, opts) => explainingClaims(db.reserve(max, opts), plans, statements),
  };
}

const usesJit = (plan: unknown) => JSON.stringify(plan).includes('"JIT"');

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * Index scans of `deliveries` without a condition: the index read whole, every entry's row
 * fetched and filtered. With statistics that put the pending rows at about one, the claim read
 * the whole partial index of pending rows so, once per candidate or to hash it. (A seq scan of the
 * few thousand rows of this test is the planner's fair choice; on a large table it is not made.)
 */
function wholeIndexReads(explained: unknown): string[] {
  const found: string[] = [];
  const visit = (n: PlanNode) => {
    if (n['Relation Name'] === 'deliveries' && n['Node Type'] === 'Index Scan' && !n['Index Cond']) found.push(`${n['Node Type']} using ${n['Index Name']}`);
    n.Plans?.forEach(visit);
  };
  for (const { Plan } of explained as { Plan: PlanNode }[]) visit(Plan);
  return found;
}

describe('claiming due deliveries (ADR 0021)', () => {
  let t: TestWebhooks;
  let receiver: HttpsReceiver;
  const plans: unknown[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver({ contract: false });
    t = await startTestWebhooks(
      {},
      {
        // Every plan counts as expensive; compile without inlining or optimisation to keep it quick.
        databaseSettings: { jit: 'on', jit_above_cost: '0', jit_inline_above_cost: '-1', jit_optimize_above_cost: '-1' },
        wrapDatabase: (db) => explainingClaims(db, plans),
      },
    );
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('never JIT-compiles the claim, however expensive PostgreSQL estimates it', async () => {
    // The setting is in force: the same statement run plainly on this database would be compiled.
    const [plain] = await t.sql<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (FORMAT JSON) SELECT id FROM webhooks.deliveries WHERE status = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT 200`,
    );
    expect(usesJit(plain!['QUERY PLAN'])).toBe(true);

    const { webhook } = await t.client.createWebhook({ name: 'jit', url: receiver.url, events: ['project.created'] }, t.ctx);
    const events = [];
    for (let i = 0; i < 8; i++) events.push(await t.publish());
    await receiver.waitFor(events.length);
    // Arrived, then recorded: wait for the outcomes, not only the arrivals.
    const rows = await waitUntil(async () => {
      const r = await t.sql<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM webhooks.deliveries WHERE webhook_id = $1 GROUP BY status', [
        webhook!.id,
      ]);
      return r.length === 1 && r[0]!.status === 'delivered' ? r : null;
    });
    expect(rows).toEqual([{ status: 'delivered', n: events.length }]);
    expect(receiver.requests.map((r) => (r.json as { event_id: string }).event_id).sort()).toEqual(events.map((e) => e.event_id).sort());

    expect(plans.length).toBeGreaterThan(0);
    expect(plans.filter(usesJit).length).toBe(0);
  });
});

describe('claiming due deliveries with statistics taken before the backlog (ADR 0021)', () => {
  let t: TestWebhooks;
  let receiver: HttpsReceiver;
  const plans: unknown[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver({ contract: false });
    t = await startTestWebhooks({}, { wrapDatabase: (db) => explainingClaims(db, plans, [CLAIM_STATEMENT, RECORD_STATEMENT]) });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('reaches each claimed and each recorded row by its key, never by reading every pending row', async () => {
    const { webhook } = await t.client.createWebhook({ name: 'stale', url: receiver.url, events: ['project.created'] }, t.ctx);
    // History only, analysed: the planner then believes there is about one pending row, as on a
    // platform whose last ANALYZE came before a burst of events. Autovacuum is kept out of it.
    await t.sql('ALTER TABLE webhooks.deliveries SET (autovacuum_enabled = false)');
    await t.sql(
      `WITH e AS (
         INSERT INTO webhooks.events (event_id, event_type, tenant_id, environment, occurred_at, data)
         SELECT 'evt_hist_' || g, 'project.created', $2, 'live', now() - interval '1 day', '{}' FROM generate_series(1, 3000) g RETURNING event_id
       )
       INSERT INTO webhooks.deliveries (id, event_id, webhook_id, tenant_id, environment, event_type, status, attempts, delivered_at, created_at)
       SELECT 'dlv_hist_' || substr(event_id, 10), event_id, $1, $2, 'live', 'project.created', 'delivered', 1, now() - interval '1 day', now() - interval '1 day' FROM e`,
      [webhook!.id, t.ctx.tenantId],
    );
    await t.sql('ANALYZE webhooks.deliveries');
    plans.length = 0; // the claims made on the empty table at start-up are not the subject

    const events = [];
    for (let i = 0; i < 8; i++) events.push(await t.publish());
    await receiver.waitFor(events.length);
    await waitUntil(async () => {
      const [r] = await t.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE webhook_id = $1 AND status = 'delivered'`, [
        webhook!.id,
      ]);
      return r!.n === 3000 + events.length;
    });

    expect(plans.length).toBeGreaterThan(0);
    expect(plans.flatMap(wholeIndexReads)).toEqual([]);
  });
});
