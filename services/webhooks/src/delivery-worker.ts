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
 * A delivery claimed ahead waits at most this long for a slot (ADR 0102). Its lease was taken for
 * one attempt plus LEASE_MARGIN_MS: started later than this it could outlive the lease, so it is
 * given back instead (the lease cleared: claimable at once, by any replica).
 */
export const QUEUED_MAX_MS = 5_000;
/** Claimed ahead are refilled once fewer than this share of the allowance waits. */
const REFILL_BELOW = 0.5;

/**
 * Sends due deliveries. Rows are claimed with a lease (FOR UPDATE SKIP LOCKED, then
 * lease_until), so several replicas share the work and a crashed replica's claims come back when
 * the lease lapses. Claims walk the webhooks that have pending deliveries and take at most
 * `perWebhookConcurrency` minus what is already in flight from each, oldest due first; so a
 * receiver that hangs for 30 s holds a few slots, never the queue of the others.
 *
 * Claims run ahead (ADR 0102): a webhook's allowance is twice its slots, and what cannot start at
 * once waits here, in claim order, for the webhook's next free slot. A slot freed by an answer is
 * refilled from that queue without a round trip to the database, and the next claim runs while
 * the queue still holds work, so a fast receiver never waits for a claim.
 */
export class DeliveryWorker {
  private inFlight = 0;
  private readonly inFlightByWebhook = new Map<string, number>();
  private readonly inFlightByTenant = new Map<string, number>();
  /** Claimed ahead, not yet started: per webhook, oldest claim first. */
  private readonly queued = new Map<string, { d: ClaimedDelivery; claimedAt: number }[]>();
  private readonly queuedByTenant = new Map<string, number>();
  private queuedCount = 0;
  private pumping = false;
  private pumpAgain = false;
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

  /** Stops claiming; gives back what was claimed ahead; waits for attempts in flight to finish and be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.claiming;
    const waiting = [...this.queued.values()].flat().map((q) => q.d);
    this.queued.clear();
    this.queuedByTenant.clear();
    this.queuedCount = 0;
    await this.giveBack(waiting);
    await Promise.allSettled([...this.attempts]);
    await this.recorder.idle();
  }

  /**
   * Clears the leases of deliveries claimed ahead and not started, so that the next claim, here or
   * on another replica, takes them at once. Only leases still running are cleared: those are
   * this worker's (a lease that lapsed may already be another claim's).
   */
  private async giveBack(deliveries: ClaimedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.deliveryDb
      .query("UPDATE deliveries SET lease_until = NULL WHERE id = ANY($1::text[]) AND status = 'pending' AND lease_until > now()", [
        deliveries.map((d) => d.id),
      ])
      .catch((err: unknown) =>
        this.logger.warn({ err, deliveries: deliveries.length }, 'deliveries claimed ahead could not be given back; their leases will lapse'),
      );
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
      // Room for as many again as the slots, waiting: twice the concurrency at most.
      const room = Math.min(2 * this.opts.concurrency - this.inFlight - this.queuedCount, MAX_CLAIM);
      if (room <= 0 || this.stopped) return;
      const claimedAt = Date.now();
      const claimed = await this.claim(room);
      for (const d of claimed) this.enqueue(d, claimedAt);
      this.pump();
      if (claimed.length < room) return;
    }
  }

  private async claim(n: number): Promise<ClaimedDelivery[]> {
    // What each webhook already holds: its attempts in flight and its deliveries claimed ahead,
    // and for one that stopped answering the part of its allowance it may not use (nothing is
    // claimed ahead for it).
    const busy = new Map(this.inFlightByWebhook);
    for (const [id, waiting] of this.queued) busy.set(id, (busy.get(id) ?? 0) + waiting.length);
    for (const [id, silent] of this.silentInARow) {
      if (silent >= UNRESPONSIVE_AFTER) busy.set(id, (busy.get(id) ?? 0) + 2 * this.opts.perWebhookConcurrency - UNRESPONSIVE_CONCURRENCY);
    }
    const tenants = new Map(this.inFlightByTenant);
    for (const [id, waiting] of this.queuedByTenant) tenants.set(id, (tenants.get(id) ?? 0) + waiting);
    return claimDueDeliveries(
      this.deliveryDb,
      n,
      this.leaseMs,
      { webhooks: [...busy], tenants: [...tenants] },
      { perWebhook: 2 * this.opts.perWebhookConcurrency, perTenant: 2 * this.opts.perTenantConcurrency },
    );
  }

  private enqueue(d: ClaimedDelivery, claimedAt: number): void {
    const waiting = this.queued.get(d.webhook_id);
    if (waiting) waiting.push({ d, claimedAt });
    else this.queued.set(d.webhook_id, [{ d, claimedAt }]);
    countIn(this.queuedByTenant, d.tenant_id, 1);
    this.queuedCount++;
  }

  /**
   * Starts what waits, oldest claim of each webhook first, while slots are free (the worker's,
   * the webhook's, its tenant's); gives back what waited too long; asks for a claim when little
   * is left waiting.
   */
  private pump(): void {
    // stopping: what waits is given back by stop()
    if (this.stopped) return;
    // An attempt that ends without waiting (a webhook deleted or inactive) gives its slot back
    // inside launch(): that pump runs after this one instead of inside it, on the same queues.
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.startWaiting();
      } while (this.pumpAgain && !this.stopped);
    } finally {
      this.pumping = false;
    }
    if (!this.stopped && this.queuedCount < REFILL_BELOW * this.opts.concurrency) this.wakeClaim();
  }

  private startWaiting(): void {
    const now = Date.now();
    const late: ClaimedDelivery[] = [];
    for (const [webhookId, waiting] of this.queued) {
      if (this.inFlight >= this.opts.concurrency) break;
      const silent = (this.silentInARow.get(webhookId) ?? 0) >= UNRESPONSIVE_AFTER;
      const perWebhook = silent ? UNRESPONSIVE_CONCURRENCY : this.opts.perWebhookConcurrency;
      let started = 0;
      while (started < waiting.length && this.inFlight < this.opts.concurrency) {
        const { d, claimedAt } = waiting[started]!;
        if (now - claimedAt > QUEUED_MAX_MS) {
          late.push(d);
        } else {
          if ((this.inFlightByWebhook.get(webhookId) ?? 0) >= perWebhook) break;
          if ((this.inFlightByTenant.get(d.tenant_id) ?? 0) >= this.opts.perTenantConcurrency) break;
          this.launch(d, claimedAt);
        }
        countIn(this.queuedByTenant, d.tenant_id, -1);
        this.queuedCount--;
        started++;
      }
      if (started === waiting.length) this.queued.delete(webhookId);
      else if (started > 0) waiting.splice(0, started);
    }
    if (late.length) void this.giveBack(late).then(() => this.wake());
  }

  /** A claim soon: at once unless one is running (then right after it). */
  private wakeClaim(): void {
    if (this.claiming) this.wakeAgain = true;
    else if (!this.timer || this.claimFailures === 0) this.wake();
  }

  private launch(d: ClaimedDelivery, claimedAt: number): void {
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
      this.pump();
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
