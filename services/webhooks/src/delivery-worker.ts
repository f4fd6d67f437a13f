import type { Logger } from '@mp/kit';
import type { WebhooksDeps } from './deps.js';
import { recordAttempt, sendAttempt, type ClaimedDelivery } from './attempt.js';

export interface WorkerOptions {
  /** Attempts in flight at once; each waits on its own receiver only. */
  concurrency: number;
  /** How often due retries are looked for when nothing woke the worker. */
  pollIntervalMs?: number;
}

/**
 * Sends due deliveries. Rows are claimed with a lease (FOR UPDATE SKIP LOCKED, then
 * lease_until), so several replicas share the work and a crashed replica's claims come back when
 * the lease lapses. Each attempt runs on its own; a receiver that hangs for 30 s holds one slot,
 * never the others.
 */
export class DeliveryWorker {
  private inFlight = 0;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private claiming: Promise<void> | null = null;
  private wakeAgain = false;
  private readonly attempts = new Set<Promise<void>>();
  private readonly leaseMs: number;

  constructor(
    private readonly deps: WebhooksDeps,
    private readonly logger: Logger,
    private readonly opts: WorkerOptions,
  ) {
    // A lease outlives the attempt's own timeout, so a live attempt is never claimed twice.
    this.leaseMs = deps.sender.timeoutMs + 15_000;
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.wakeAgain = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.claiming = this.claimAndSend()
      .catch((err) => this.logger.warn({ err }, 'delivery worker could not claim deliveries; retrying'))
      .finally(() => {
        this.claiming = null;
        if (this.stopped) return;
        if (this.wakeAgain) {
          this.wakeAgain = false;
          this.wake();
        } else this.schedule();
      });
  }

  /** Stops claiming; waits for attempts in flight to finish and be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.claiming;
    await Promise.allSettled([...this.attempts]);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.wake(), this.opts.pollIntervalMs ?? 250);
  }

  private async claimAndSend(): Promise<void> {
    for (;;) {
      const room = this.opts.concurrency - this.inFlight;
      if (room <= 0 || this.stopped) return;
      const claimed = await this.claim(Math.min(room, 200));
      for (const d of claimed) this.launch(d);
      if (claimed.length < Math.min(room, 200)) return;
    }
  }

  private async claim(n: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.deps.db.query<ClaimedDelivery>(
      `WITH due AS (
         SELECT id FROM deliveries
          WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE deliveries d SET lease_until = now() + ($2::int * interval '1 millisecond')
           FROM due WHERE d.id = due.id
         RETURNING d.id, d.attempts, d.event_id, d.event_type, d.webhook_id
       )
       SELECT c.id, c.attempts, c.event_id, c.event_type, e.occurred_at, e.data, c.webhook_id,
              w.url, w.secret_sealed, w.max_retries, w.retry_interval, w.active, (w.deleted_at IS NOT NULL) AS deleted
         FROM claimed c JOIN events e ON e.event_id = c.event_id JOIN webhooks w ON w.id = c.webhook_id`,
      [n, this.leaseMs],
    );
    return rows;
  }

  private launch(d: ClaimedDelivery): void {
    this.inFlight++;
    const p = this.deliver(d)
      .catch((err) => this.logger.error({ err, delivery_id: d.id }, 'delivery attempt could not be recorded; the lease will expire and it will be retried'))
      .finally(() => {
        this.inFlight--;
        this.attempts.delete(p);
        this.wake();
      });
    this.attempts.add(p);
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    if (!d.active || d.deleted) {
      await recordAttempt(this.deps.db, d, startedAt, { outcome: 'failed', httpStatus: null, durationMs: 0, error: d.deleted ? 'webhook deleted' : 'webhook inactive', redirects: 0, finalUrl: d.url });
      return;
    }
    const result = await sendAttempt(this.deps, d);
    const status = await recordAttempt(this.deps.db, d, startedAt, result);
    this.logger.debug({ delivery_id: d.id, event_id: d.event_id, status, http_status: result.httpStatus, duration_ms: result.durationMs }, 'delivery attempt');
  }
}
