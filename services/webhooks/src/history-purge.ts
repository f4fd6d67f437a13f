import type { Database } from '@mp/db';
import type { Logger } from '@mp/kit';

export interface HistoryPurgeOptions {
  /** Finished deliveries created longer ago than this are removed with their attempts (MP_WEBHOOK_DELIVERY_RETENTION_DAYS). */
  retentionMs: number;
  /** How often the purge runs; every 10 minutes by default. */
  everyMs?: number;
  /** Deliveries removed per statement; 1,000 by default, so no purge holds many locks or a long transaction. */
  batchSize?: number;
}

/**
 * Removes the delivery history past the retention (ADR 0021), in small batches like the outbox
 * purge: finished deliveries (delivered or failed; never pending ones, whose retries are still to
 * come) created before the cut-off, their attempts, and their event once no delivery refers to it.
 * It walks each webhook's deliveries oldest first through deliveries_by_webhook, so it needs no
 * index of its own and never scans the table; a statement takes at most `batchSize` rows and skips
 * rows another transaction holds (a resend in progress).
 */
export class DeliveryHistoryPurger {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly opts: HistoryPurgeOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(this.opts.everyMs ?? 600_000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass over every webhook; resolves with the number of deliveries removed. */
  async purge(): Promise<number> {
    const before = new Date(Date.now() - this.opts.retentionMs).toISOString();
    const { rows: hooks } = await this.db.query<{ id: string }>('SELECT id FROM webhooks ORDER BY id');
    let total = 0;
    for (const { id } of hooks) {
      for (;;) {
        const removed = await purgeBatch(this.db, id, before, this.opts.batchSize ?? 1000);
        total += removed;
        if (removed === 0 || this.stopped) break;
      }
      if (this.stopped) break;
    }
    return total;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.purge()
        .then((n) => {
          if (n > 0) this.logger.info({ deliveries: n }, 'removed delivery history past the retention');
        })
        .catch((err) => this.logger.warn({ err }, 'could not remove delivery history; trying again later'))
        .finally(() => {
          this.running = null;
          this.schedule(this.opts.everyMs ?? 600_000);
        });
    }, delayMs);
  }
}

/**
 * One batch of one webhook in one statement. All parts of a statement see the same snapshot, so
 * an event is removed when every delivery still referring to it is in this batch.
 */
async function purgeBatch(db: Database, webhookId: string, before: string, batchSize: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH doomed AS (
       SELECT id, event_id FROM deliveries
        WHERE webhook_id = $1 AND created_at < $2::timestamptz AND status <> 'pending'
        ORDER BY created_at, id LIMIT $3
        FOR UPDATE SKIP LOCKED
     ), attempts AS (
       DELETE FROM delivery_attempts a USING doomed d WHERE a.delivery_id = d.id
     ), gone AS (
       DELETE FROM deliveries d USING doomed x WHERE d.id = x.id RETURNING d.event_id
     ), orphans AS (
       DELETE FROM events e
        WHERE e.event_id IN (SELECT event_id FROM gone)
          AND NOT EXISTS (SELECT 1 FROM deliveries o WHERE o.event_id = e.event_id AND o.id NOT IN (SELECT id FROM doomed))
     )
     SELECT count(*)::int AS n FROM gone`,
    [webhookId, before, batchSize],
  );
  return rows[0]?.n ?? 0;
}
