import type { Logger } from '@mp/kit';
import type { WebhooksDeps } from './deps.js';
import { sendAttempt, type ClaimedDelivery } from './attempt.js';
import { AttemptRecorder } from './attempt-recorder.js';
import type { Database } from '@mp/db';
import { claimDueDeliveries } from './claim.js';

export interface WorkerOptions {
  /** Attempts in flight at once; each waits on its own receiver only. */
  concurrency: number;
  /**
   * Attempts in flight at once for one webhook; one that stopped answering gets
   * UNRESPONSIVE_CONCURRENCY. A receiver that hangs so holds a few slots (each for the attempt
   * timeout); the other receivers keep the rest.
   */
  perWebhookConcurrency: number;
  /**
   * Attempts in flight at once for all webhooks of one tenant: another tenant's deliveries always
   * find slots, however many slow receivers one tenant has.
   */
  perTenantConcurrency: number;
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
  private readonly inFlightByTenant = new Map<string, number>();
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
  /**
   * The worker's own connections, one for claims and one for the recorder (each runs one statement
   * at a time): in the shared pool their statements queued behind ingestion and API statements
   * while the receiver waited for work. Keyed plans (ADR 0058): both statements reach their rows by
   * key, and plans made on the empty tables of a fresh start read whole tables once work arrived.
   */
  private readonly deliveryDb: Database;

  constructor(
    private readonly deps: WebhooksDeps,
    private readonly logger: Logger,
    private readonly opts: WorkerOptions,
  ) {
    this.leaseMs = deps.sender.timeoutMs + LEASE_MARGIN_MS;
    this.deliveryDb = deps.db.reserve(2, { keyedPlans: true });
    this.recorder = new AttemptRecorder(this.deliveryDb, logger);
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
    return claimDueDeliveries(
      this.deliveryDb,
      n,
      this.leaseMs,
      { webhooks: [...busy], tenants: [...this.inFlightByTenant] },
      { perWebhook: this.opts.perWebhookConcurrency, perTenant: this.opts.perTenantConcurrency },
    );
  }

  private launch(d: ClaimedDelivery): void {
    const claimedAt = Date.now();
    this.inFlight++;
    countIn(this.inFlightByWebhook, d.webhook_id, 1);
    countIn(this.inFlightByTenant, d.tenant_id, 1);
    this.deps.metrics.inFlight.inc();
    let released = false;
    // The slot is the receiver's: it is given back as soon as the receiver has answered, while
    // the outcome is still being recorded (the lease keeps the delivery from being claimed again).
    const release = () => {
      if (released) return;
      released = true;
      this.inFlight--;
      countIn(this.inFlightByWebhook, d.webhook_id, -1);
      countIn(this.inFlightByTenant, d.tenant_id, -1);
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
    if ((result.httpStatus === null || result.timedOut) && result.outcome === 'retry')
      this.silentInARow.set(d.webhook_id, (this.silentInARow.get(d.webhook_id) ?? 0) + 1);
    else this.silentInARow.delete(d.webhook_id);
    sent();
    this.deps.metrics.observeAttempt(result);
    // Give up waiting for the database a second before the lease lapses and another claim may start.
    const status = await this.recorder.record({ delivery: d, startedAt, finishedAt, result, allowRetry: true }, claimedAt + this.leaseMs - 1000);
    if (status === 'delivered' || status === 'failed')
      this.deps.metrics.deliveryLatency.observe({ outcome: status }, Math.max(0, finishedAt.getTime() - Date.parse(d.occurred_at)) / 1000);
    this.logger.debug({ delivery_id: d.id, event_id: d.event_id, status, http_status: result.httpStatus, duration_ms: result.durationMs }, 'delivery attempt');
  }
}

/** Adds `by` to the count of `key`; a count that reaches 0 is removed. */
function countIn(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
