import type { Logger } from '@mp/kit';
import type { WebhooksDeps } from './deps.js';
import { sendAttempt, type ClaimedDelivery } from './attempt.js';
import { AttemptRecorder } from './attempt-recorder.js';
import { ASYNC_COMMIT_SQL, type Queryable } from '@mp/db';
import { SIGNING_SECRET_SQL } from './webhook-row.js';

export interface WorkerOptions {
  /** Attempts in flight at once; each waits on its own receiver only. */
  concurrency: number;
  /**
   * Attempts in flight at once for one webhook; one that stopped answering gets
   * UNRESPONSIVE_CONCURRENCY. A receiver that hangs so holds a few slots (each for the attempt
   * timeout); the other receivers keep the rest.
   */
  perWebhookConcurrency: number;
  /** How often due retries are looked for when nothing woke the worker. */
  pollIntervalMs?: number;
}

/**
 * A webhook whose last attempts all ended without any answer (time-out, connection refused or
 * reset) is throttled to this many attempts in flight until it answers again: a receiver that
 * hangs then holds a handful of slots for the 30 s timeout, not its full allowance.
 */
export const UNRESPONSIVE_CONCURRENCY = 4;
const UNRESPONSIVE_AFTER = 3;

/** A lease outlives the attempt's timeout by this much, so a live attempt is never claimed twice. */
export const LEASE_MARGIN_MS = 10_000;
const MAX_CLAIM = 200;

/**
 * Sends due deliveries. Rows are claimed with a lease (FOR UPDATE SKIP LOCKED, then
 * lease_until), so several replicas share the work and a crashed replica's claims come back when
 * the lease lapses. Claims walk the webhooks that have pending deliveries and take at most
 * `perWebhookConcurrency` minus what is already in flight from each, oldest due first; so a
 * receiver that hangs for 30 s holds a few slots, never the queue of the others.
 */
export class DeliveryWorker {
  private inFlight = 0;
  private readonly inFlightByWebhook = new Map<string, number>();
  /** Attempts in a row without any answer, per webhook (see UNRESPONSIVE_CONCURRENCY). */
  private readonly silentInARow = new Map<string, number>();
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private claiming: Promise<void> | null = null;
  private wakeAgain = false;
  private claimFailures = 0;
  private readonly attempts = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private readonly recorder: AttemptRecorder;

  constructor(
    private readonly deps: WebhooksDeps,
    private readonly logger: Logger,
    private readonly opts: WorkerOptions,
  ) {
    this.leaseMs = deps.sender.timeoutMs + LEASE_MARGIN_MS;
    this.recorder = new AttemptRecorder(deps.db, logger);
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
      .then(() => {
        this.claimFailures = 0;
      })
      .catch((err) => {
        this.claimFailures++;
        if (this.claimFailures === 1 || this.claimFailures % 20 === 0) this.logger.warn({ err }, 'delivery worker could not claim deliveries; retrying');
      })
      .finally(() => {
        this.claiming = null;
        if (this.stopped) return;
        if (this.wakeAgain && this.claimFailures === 0) {
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
    await this.recorder.idle();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.wakeAgain = false;
    // After failures (database restarting) back off instead of logging every poll.
    const delay = this.claimFailures === 0 ? (this.opts.pollIntervalMs ?? 250) : Math.min(250 * 2 ** this.claimFailures, 5000);
    this.timer = setTimeout(() => this.wake(), delay);
  }

  private async claimAndSend(): Promise<void> {
    for (;;) {
      const room = Math.min(this.opts.concurrency - this.inFlight, MAX_CLAIM);
      if (room <= 0 || this.stopped) return;
      const claimed = await this.claim(room);
      for (const d of claimed) this.launch(d);
      if (claimed.length < room) return;
    }
  }

  private async claim(n: number): Promise<ClaimedDelivery[]> {
    // What each webhook already uses: its attempts in flight, and for one that stopped answering
    // the part of its allowance it may not use.
    const busy = new Map(this.inFlightByWebhook);
    for (const [id, silent] of this.silentInARow) {
      if (silent >= UNRESPONSIVE_AFTER) busy.set(id, (busy.get(id) ?? 0) + Math.max(0, this.opts.perWebhookConcurrency - UNRESPONSIVE_CONCURRENCY));
    }
    const { rows } = await claimQuery(this.deps.db, n, this.leaseMs, [...busy], this.opts.perWebhookConcurrency);
    return rows;
  }

  private launch(d: ClaimedDelivery): void {
    const claimedAt = Date.now();
    this.inFlight++;
    this.inFlightByWebhook.set(d.webhook_id, (this.inFlightByWebhook.get(d.webhook_id) ?? 0) + 1);
    this.deps.metrics.inFlight.inc();
    let released = false;
    // The slot is the receiver's: it is given back as soon as the receiver has answered, while
    // the outcome is still being recorded (the lease keeps the delivery from being claimed again).
    const release = () => {
      if (released) return;
      released = true;
      this.inFlight--;
      const left = (this.inFlightByWebhook.get(d.webhook_id) ?? 1) - 1;
      if (left > 0) this.inFlightByWebhook.set(d.webhook_id, left);
      else this.inFlightByWebhook.delete(d.webhook_id);
      this.deps.metrics.inFlight.dec();
      this.wake();
    };
    const p = this.deliver(d, claimedAt, release)
      .catch((err) => this.logger.error({ err, delivery_id: d.id }, 'delivery attempt could not be recorded; the lease will expire and it will be retried'))
      .finally(() => {
        release();
        this.attempts.delete(p);
      });
    this.attempts.add(p);
  }

  private async deliver(d: ClaimedDelivery, claimedAt: number, sent: () => void): Promise<void> {
    const startedAt = this.deps.clock.now();
    // A resent delivery (cycle > 1) is sent even to an inactive webhook: someone asked for it.
    const refused = d.deleted ? 'webhook deleted' : !d.active && d.cycle === 1 ? 'webhook inactive' : null;
    const result = refused
      ? { outcome: 'failed' as const, httpStatus: null, durationMs: 0, error: refused, redirects: 0, finalUrl: d.url }
      : await sendAttempt(this.deps, d);
    const finishedAt = this.deps.clock.now();
    if (result.httpStatus === null && result.outcome === 'retry') this.silentInARow.set(d.webhook_id, (this.silentInARow.get(d.webhook_id) ?? 0) + 1);
    else this.silentInARow.delete(d.webhook_id);
    sent();
    this.deps.metrics.observeAttempt(result);
    // Give up waiting for the database a second before the lease lapses and another claim may start.
    const status = await this.recorder.record({ delivery: d, startedAt, finishedAt, result, allowRetry: true }, claimedAt + this.leaseMs - 1000);
    this.logger.debug({ delivery_id: d.id, event_id: d.event_id, status, http_status: result.httpStatus, duration_ms: result.durationMs }, 'delivery attempt');
  }
}

/**
 * Claims up to `n` due deliveries: walks the webhooks that have pending deliveries (a loose index
 * scan of deliveries_pending_by_webhook), takes from each at most its per-webhook allowance minus
 * what this worker already has in flight for it, oldest due first, locks them (SKIP LOCKED: other
 * replicas take others) and leases them.
 *
 * Committed with synchronous_commit off (ASYNC_COMMIT_SQL): a database crash can only forget a
 * lease, which makes the delivery claimable again (a repeat at worst). The deliveries themselves
 * were committed durably before their event was acknowledged; see ADR 0009.
 */
function claimQuery(q: Queryable, n: number, leaseMs: number, busy: [string, number][], perWebhook: number) {
  return q.query<ClaimedDelivery>(
    `WITH RECURSIVE ${ASYNC_COMMIT_SQL}, hooks(webhook_id) AS (
         (SELECT webhook_id FROM deliveries WHERE status = 'pending' ORDER BY webhook_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.webhook_id FROM deliveries d WHERE d.status = 'pending' AND d.webhook_id > h.webhook_id ORDER BY d.webhook_id LIMIT 1)
           FROM hooks h WHERE h.webhook_id IS NOT NULL
       ), busy AS (
         SELECT * FROM unnest($3::text[], $4::int[]) AS b(webhook_id, n)
       ), candidates AS (
         SELECT c.id, c.next_attempt_at
           FROM hooks h
           LEFT JOIN busy b ON b.webhook_id = h.webhook_id
           CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM deliveries d
              WHERE d.webhook_id = h.webhook_id AND d.status = 'pending' AND d.next_attempt_at <= now()
                AND (d.lease_until IS NULL OR d.lease_until < now())
              ORDER BY d.next_attempt_at
              LIMIT greatest(0, $5::int - coalesce(b.n, 0))
           ) c
          WHERE h.webhook_id IS NOT NULL
          ORDER BY c.next_attempt_at LIMIT $1
       ), due AS (
         SELECT d.id FROM deliveries d JOIN candidates c ON c.id = d.id
          WHERE d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < now())
          FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE deliveries d SET lease_until = now() + ($2::int * interval '1 millisecond')
           FROM due WHERE d.id = due.id
         RETURNING d.id, d.attempts, d.cycle, d.event_id, d.event_type, d.webhook_id
       )
       SELECT c.id, c.attempts, c.cycle, c.event_id, c.event_type, e.occurred_at, e.data, c.webhook_id,
              w.url, ${SIGNING_SECRET_SQL('w')} AS secret_sealed, w.max_retries, w.retry_interval, w.active, (w.deleted_at IS NOT NULL) AS deleted
         FROM claimed c JOIN events e ON e.event_id = c.event_id JOIN webhooks w ON w.id = c.webhook_id CROSS JOIN async_commit`,
    [n, leaseMs, busy.map(([id]) => id), busy.map(([, k]) => k), perWebhook],
    // Planning this statement costs more than running it: plan once per connection.
    { prepare: 'webhooks_claim' },
  );
}
