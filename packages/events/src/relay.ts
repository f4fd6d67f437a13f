import { ASYNC_COMMIT_SQL, type Database } from '@mp/db';
import type { Logger } from '@mp/kit';
import type { EventType } from './catalogue.js';
import type { OutgoingEvent } from './envelope.js';
import type { EventTransport } from './transport.js';

export interface RelayOptions {
  db: Database;
  transport: EventTransport;
  logger: Logger;
  /** How often to look for rows nobody kicked the relay for (after a crash, or another replica's). */
  pollIntervalMs?: number;
  batchSize?: number;
  /**
   * How long published events stay in the outbox (for operators looking into what was sent)
   * before the relay deletes them; 24 h by default (MP_OUTBOX_RETENTION_HOURS).
   */
  retentionMs?: number | undefined;
  /** How often the relay looks for published events past the retention; every minute by default. */
  purgeEveryMs?: number;
}

/** Oldest rows looked at per purge statement, so no purge holds many locks or a long transaction. */
const PURGE_BATCH = 5000;

interface OutboxRow {
  seq: number;
  event_id: string;
  event_type: EventType;
  tenant_id: string;
  environment: 'live' | 'sandbox';
  occurred_at: string;
  /** The data's JSON text, passed on as it is. */
  data: string;
  traceparent: string | null;
}

/**
 * Publishes outbox rows to the event transport and marks them dispatched. Rows are claimed with
 * FOR UPDATE SKIP LOCKED, so replicas share the work; a row is marked only after the transport
 * acknowledged it, so a crash in between publishes it again (the transport de-duplicates on
 * event_id). Transport failures back off and retry; nothing is dropped.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private failures = 0;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly retentionMs: number;
  private readonly purgeEveryMs: number;
  private lastPurge = 0;

  private readonly db: Database;

  constructor(private readonly opts: RelayOptions) {
    this.pollIntervalMs = opts.pollIntervalMs ?? 500;
    this.batchSize = opts.batchSize ?? 200;
    this.retentionMs = opts.retentionMs ?? 24 * 3600_000;
    this.purgeEveryMs = opts.purgeEveryMs ?? 60_000;
    // A connection of its own: under load the service's pool is held by API writes, and a relay
    // queued behind them delayed events by hundreds of milliseconds (bench/webhooks).
    this.db = opts.db.reserve(1);
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Called after a commit that wrote events, so they go out at once rather than at the next poll. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Publishes everything pending now; resolves with the number of events dispatched. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.dispatchBatch();
      total += n;
      if (n < this.batchSize) return total;
    }
  }

  /**
   * Deletes the events published longer than the retention ago; resolves with how many. Runs on
   * its own every `purgeEveryMs`. It looks only at the oldest rows (seq order, the primary key),
   * a window at a time, and stops at a window where nothing is old enough: an outbox holding a
   * day of events is never scanned whole. Rows are never locked ahead of the delete, so the
   * relay's claims do not skip pending rows while a purge runs.
   */
  async purge(): Promise<number> {
    const before = new Date(Date.now() - this.retentionMs).toISOString();
    let total = 0;
    for (;;) {
      const { rowCount } = await this.db.query(
        `DELETE FROM outbox WHERE seq IN (
           SELECT seq FROM (SELECT seq, dispatched_at FROM outbox ORDER BY seq LIMIT $2) oldest WHERE dispatched_at < $1)`,
        [before, PURGE_BATCH],
      );
      total += rowCount;
      if (rowCount === 0 || this.stopped) return total;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick().finally(() => {
        this.running = null;
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    let delay = this.pollIntervalMs;
    try {
      do {
        this.again = false;
        while ((await this.dispatchBatch()) === this.batchSize && !this.stopped);
      } while (this.again && !this.stopped);
      if (Date.now() - this.lastPurge >= this.purgeEveryMs && !this.stopped) {
        this.lastPurge = Date.now();
        await this.purge();
      }
      this.failures = 0;
    } catch (err) {
      this.failures++;
      delay = Math.min(this.pollIntervalMs * 2 ** this.failures, 10_000);
      this.opts.logger.warn({ err, retryInMs: delay }, 'outbox relay could not publish; will retry');
    }
    this.schedule(delay);
  }

  private async dispatchBatch(): Promise<number> {
    const { transport } = this.opts;
    return this.db.transaction(async (tx) => {
      // The marks commit without waiting for the disk: one forgotten in a crash republishes its
      // event, which JetStream (Nats-Msg-Id) and the consumers (event_id) de-duplicate.
      const { rows } = await tx.query<OutboxRow>(
        `WITH ${ASYNC_COMMIT_SQL}
         SELECT seq, event_id, event_type, tenant_id, environment, occurred_at, data, traceparent
           FROM outbox, async_commit WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE OF outbox SKIP LOCKED`,
        [this.batchSize],
        { prepare: 'outbox_claim' },
      );
      if (rows.length === 0) return 0;
      // Publish in order; JetStream acks each. Concurrency within a batch keeps throughput up.
      await Promise.all(rows.map((row) => transport.publish(toEvent(row))));
      await tx.query(`UPDATE outbox SET dispatched_at = now() WHERE seq = ANY($1::bigint[])`, [rows.map((r) => r.seq)], { prepare: 'outbox_mark' });
      return rows.length;
    });
  }
}

function toEvent(row: OutboxRow): OutgoingEvent {
  return {
    meta: {
      event_id: row.event_id,
      event_type: row.event_type,
      tenant_id: row.tenant_id,
      environment: row.environment,
      occurred_at: row.occurred_at,
      ...(row.traceparent ? { traceparent: row.traceparent } : {}),
    },
    dataJson: row.data,
  };
}
