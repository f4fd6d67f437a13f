import { ASYNC_COMMIT_SQL, type Queryable } from '@mp/db';
import type { ClaimedDelivery } from './attempt.js';
import { SIGNING_SECRET_SQL } from './webhook-row.js';

/** What the worker already has in flight: per webhook, and per tenant (all its webhooks). */
export interface Busy {
  webhooks: [string, number][];
  tenants: [string, number][];
}

/** The most a claim may take: per webhook, and per tenant across its webhooks. */
export interface Allowance {
  perWebhook: number;
  perTenant: number;
}

/**
 * Claims up to `n` due deliveries: walks the webhooks that have pending deliveries (a loose index
 * scan of deliveries_pending_by_webhook), takes from each at most its per-webhook allowance minus
 * what this worker already has in flight for it, and from each tenant at most its per-tenant
 * allowance minus what is in flight for it, oldest due first, locks them (SKIP LOCKED: other
 * replicas take others) and leases them. The tenant's share keeps one tenant's many slow receivers
 * from taking every slot of the worker.
 *
 * One statement, its own transaction: the rows it locks are leased when it commits.
 * Committed with synchronous_commit off (ASYNC_COMMIT_SQL): a database crash can only forget a
 * lease, which makes the delivery claimable again (a repeat at worst). The deliveries themselves
 * were committed durably before their event was acknowledged; see ADR 0009.
 *
 * Run it on a connection with keyed plans (KEYED_PLAN_SETTINGS, ADR 0058): its plan must reach
 * every row by key whatever the statistics say. Planned on an empty table, or on statistics taken
 * before a backlog, it otherwise read whole tables at every claim; and its estimate, which grows
 * with the history, made PostgreSQL JIT-compile it at every execution (ADR 0021).
 */
export async function claimDueDeliveries(db: Queryable, n: number, leaseMs: number, busy: Busy, allowance: Allowance): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery>(
    `WITH RECURSIVE ${ASYNC_COMMIT_SQL}, hooks(webhook_id) AS (
         (SELECT webhook_id FROM deliveries WHERE status = 'pending' ORDER BY webhook_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.webhook_id FROM deliveries d WHERE d.status = 'pending' AND d.webhook_id > h.webhook_id ORDER BY d.webhook_id LIMIT 1)
           FROM hooks h WHERE h.webhook_id IS NOT NULL
       ), busy AS (
         SELECT * FROM unnest($3::text[], $4::int[]) AS b(webhook_id, n)
       ), busy_tenants AS (
         SELECT * FROM unnest($6::text[], $7::int[]) AS b(tenant_id, n)
       ), candidates AS (
         SELECT c.id, c.next_attempt_at, c.tenant_id
           FROM hooks h
           LEFT JOIN busy b ON b.webhook_id = h.webhook_id
           CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at, d.tenant_id FROM deliveries d
              WHERE d.webhook_id = h.webhook_id AND d.status = 'pending' AND d.next_attempt_at <= now()
                AND (d.lease_until IS NULL OR d.lease_until < now())
              ORDER BY d.next_attempt_at
              LIMIT greatest(0, $5::int - coalesce(b.n, 0))
           ) c
          WHERE h.webhook_id IS NOT NULL
       ), fair AS (
         SELECT c.id, c.next_attempt_at
           FROM (SELECT c.*, row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.next_attempt_at) AS k FROM candidates c) c
           LEFT JOIN busy_tenants bt ON bt.tenant_id = c.tenant_id
          WHERE c.k <= $8::int - coalesce(bt.n, 0)
          ORDER BY c.next_attempt_at LIMIT $1
       ), due AS (
         -- Each candidate locked by primary key. LIMIT 1 keeps the outer filter out of the
         -- subquery: pushed in, it made the partial index on pending rows usable, and with
         -- statistics taken before a backlog arrived (~1 pending row estimated) the planner
         -- scanned that whole index for every candidate, or hashed all pending rows (ADR 0021).
         SELECT l.id FROM fair c
          CROSS JOIN LATERAL (SELECT d.id, d.status, d.lease_until FROM deliveries d WHERE d.id = c.id LIMIT 1 FOR UPDATE SKIP LOCKED) l
          WHERE l.status = 'pending' AND (l.lease_until IS NULL OR l.lease_until < now())
       ), claimed AS (
         UPDATE deliveries d SET lease_until = now() + ($2::int * interval '1 millisecond')
           FROM due WHERE d.id = due.id
         RETURNING d.id, d.attempts, d.cycle, d.event_id, d.event_type, d.webhook_id, d.tenant_id
       )
       SELECT c.id, c.attempts, c.cycle, c.event_id, c.event_type, e.occurred_at, e.data, e.traceparent, c.webhook_id, c.tenant_id,
              w.url, ${SIGNING_SECRET_SQL('w')} AS secret_sealed, w.max_retries, w.retry_interval, w.active, (w.deleted_at IS NOT NULL) AS deleted
         FROM claimed c JOIN events e ON e.event_id = c.event_id JOIN webhooks w ON w.id = c.webhook_id CROSS JOIN async_commit`,
    [
      n,
      leaseMs,
      busy.webhooks.map(([id]) => id),
      busy.webhooks.map(([, k]) => k),
      allowance.perWebhook,
      busy.tenants.map(([id]) => id),
      busy.tenants.map(([, k]) => k),
      allowance.perTenant,
    ],
    // Planning this statement costs more than running it: plan once per connection.
    { prepare: 'webhooks_claim' },
  );
  return rows;
}
