import { arrayParam, ASYNC_COMMIT_SQL, type Database, type Queryable } from '@mp/db';
import { contextFrom, counter, failSpan, inSpan, oncePerScrape, sampledGauge, SpanKind, startSpan, traceparentOf, type Logger } from '@mp/kit';
import type { EventType } from './catalogue.js';
import type { OutgoingEvent } from './envelope.js';
import type { EventTransport } from './transport.js';

export interface RelayOptions {
  db: Database;
  /** The producing service, the `service` label of the outbox metrics. */
  service?: string;
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
  /** At most this much handed-over data is held (bytes; 64 MB by default): beyond it the oldest is read back instead. */
  heldBytesMax?: number;
  /** Handed-over data not claimed by this relay within this time (another replica published its row) is let go; 60 s by default. */
  heldMaxAgeMs?: number;
}

/** An event a producer has just committed, with its data as the outbox row holds it. */
export interface HandedEvent {
  eventId: string;
  dataJson: string | Uint8Array;
}

const published = counter({
  name: 'mp_outbox_published_total',
  help: 'Events the outbox relay published to the event transport, by producing service.',
  labelNames: ['service'],
});

/** Oldest rows looked at per purge statement, so no purge holds many locks or a long transaction. */
const PURGE_BATCH = 5000;

interface OutboxRow {
  seq: number;
  event_id: string;
  event_type: EventType;
  tenant_id: string;
  environment: 'live' | 'sandbox';
  occurred_at: string;
  /** The data's JSON text, passed on as it is (null when the relay holds it: handed over). */
  data: string | null;
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
  /** Data producers handed over after their commit, by event id, oldest first (a Map keeps insertion order). */
  private readonly held = new Map<string, { dataJson: string | Uint8Array; at: number }>();
  private heldBytes = 0;
  private readonly heldBytesMax: number;
  private readonly heldMaxAgeMs: number;

  private readonly db: Database;

  constructor(private readonly opts: RelayOptions) {
    this.pollIntervalMs = opts.pollIntervalMs ?? 500;
    this.batchSize = opts.batchSize ?? 200;
    this.retentionMs = opts.retentionMs ?? 24 * 3600_000;
    this.purgeEveryMs = opts.purgeEveryMs ?? 60_000;
    this.heldBytesMax = opts.heldBytesMax ?? 64 * 1024 * 1024;
    this.heldMaxAgeMs = opts.heldMaxAgeMs ?? 60_000;
    // A connection of its own: under load the service's pool is held by API writes, and a relay
    // queued behind them delayed events by hundreds of milliseconds (bench/webhooks). Keyed plans
    // (ADR 0058): its statements reach rows through the pending index and the key, and a plan made
    // while the outbox was empty would otherwise read the whole table once a burst arrived.
    this.db = opts.db.reserve(1, { keyedPlans: true });
  }

  start(): void {
    this.stopped = false;
    this.unregisterMetrics ??= this.registerMetrics();
    this.schedule(0);
  }

  private unregisterMetrics: (() => void) | null = null;

  /**
   * The backlog as the database has it when scraped (every replica reports the same table, so
   * dashboards take the max per service, not the sum).
   */
  private registerMetrics(): () => void {
    const service = this.opts.service ?? 'unknown';
    // One query serves both gauges of one scrape.
    const read = oncePerScrape(() =>
      this.opts.db
        .query<{ n: number; age: number | null }>(
          `SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(occurred_at)), 0)::float8 AS age FROM outbox WHERE dispatched_at IS NULL`,
        )
        .then(({ rows }) => ({ n: rows[0]!.n, age: rows[0]!.age ?? 0 })),
    );
    const offs = [
      sampledGauge(
        { name: 'mp_outbox_pending_events', help: 'Events committed to an outbox and not yet published, by producing service.', labelNames: ['service'] },
        async () => [{ labels: { service }, value: (await read()).n }],
      ),
      sampledGauge(
        {
          name: 'mp_outbox_oldest_pending_age_seconds',
          help: 'Age of the oldest event not yet published (0 when none), by producing service.',
          labelNames: ['service'],
        },
        async () => [{ labels: { service }, value: Math.max(0, (await read()).age) }],
      ),
    ];
    return () => offs.forEach((off) => off());
  }

  /**
   * Called after a commit that wrote events, so they go out at once rather than at the next poll.
   * A producer may hand over the data it just wrote (`events`): the relay then publishes it from
   * memory and its claim leaves that data in the database, where reading a 1,000-record
   * data.created back (~300 KB) cost PostgreSQL and this process more than anything else in
   * publishing it. Only what committed may be handed over; a crash loses only the memory, and the
   * rows are published from the database as before.
   */
  kick(events?: readonly HandedEvent[]): void {
    // held even while the relay is not running: drain() or a later start() publishes it
    if (events) for (const e of events) this.hold(e);
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unregisterMetrics?.();
    this.unregisterMetrics = null;
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
      this.failures = 0;
    } catch (err) {
      this.failures++;
      delay = Math.min(this.pollIntervalMs * 2 ** this.failures, 10_000);
      this.opts.logger.warn({ err, retryInMs: delay }, 'outbox relay could not publish; will retry');
    }
    await this.purgeWhenDue();
    this.schedule(delay);
  }

  /**
   * The periodic purge, apart from publishing: a purge that fails is tried again at the next
   * interval and neither delays nor backs off the publishing of pending events.
   */
  private async purgeWhenDue(): Promise<void> {
    if (Date.now() - this.lastPurge < this.purgeEveryMs || this.stopped) return;
    this.lastPurge = Date.now();
    try {
      await this.purge();
    } catch (err) {
      this.opts.logger.warn({ err, retryInMs: this.purgeEveryMs }, 'outbox purge failed; will try again');
    }
  }

  /** How many event payloads the relay holds in memory (for tests and tools). */
  get heldCount(): number {
    return this.held.size;
  }

  private hold(e: HandedEvent): void {
    const size = e.dataJson.length;
    if (size > this.heldBytesMax || this.held.has(e.eventId)) return;
    this.held.set(e.eventId, { dataJson: e.dataJson, at: Date.now() });
    this.heldBytes += size;
    this.letGo(Date.now());
  }

  private release(eventId: string): void {
    const entry = this.held.get(eventId);
    if (!entry) return;
    this.held.delete(eventId);
    this.heldBytes -= entry.dataJson.length;
  }

  /** Lets go of the oldest data while there is too much, and of data no claim of this relay took in time. */
  private letGo(now: number): void {
    for (const [id, entry] of this.held) {
      if (this.heldBytes <= this.heldBytesMax && now - entry.at < this.heldMaxAgeMs) break;
      this.release(id);
    }
  }

  /**
   * Claim, publish and mark in one transaction on PostgreSQL, where it keeps relay replicas off
   * each other's rows. On PGlite the process has one session for every service (ADR 0051): a
   * transaction held while the in-process transport runs a consumer, whose statements need that
   * session, would wait for itself. No other session can claim rows there, so the statements run
   * on their own; a crash between publishing and marking publishes again, as it does on PostgreSQL.
   */
  private claimed<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.db.kind === 'pglite' ? fn(this.db) : this.db.transaction(fn);
  }

  private async dispatchBatch(): Promise<number> {
    const { transport } = this.opts;
    this.letGo(Date.now());
    // what this claim leaves in the table is what it has here, whatever happens to `held` meanwhile
    const held = new Map<string, string | Uint8Array>();
    for (const [id, entry] of this.held) held.set(id, entry.dataJson);
    const { rows, taken, failure } = await this.claimed(async (tx) => {
      // The marks commit without waiting for the disk: one forgotten in a crash republishes its
      // event, which JetStream (Nats-Msg-Id) and the consumers (event_id) de-duplicate. The data of
      // events this relay holds stays in the table (PostgreSQL does not even read it).
      const { rows } = await tx.query<OutboxRow>(
        `WITH ${ASYNC_COMMIT_SQL}
         SELECT seq, event_id, event_type, tenant_id, environment, occurred_at,
                CASE WHEN event_id = ANY($2::text[]) THEN NULL ELSE data END AS data, traceparent
           FROM outbox, async_commit WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE OF outbox SKIP LOCKED`,
        [this.batchSize, arrayParam('text', [...held.keys()])],
        { prepare: 'outbox_claim' },
      );
      if (rows.length === 0) return { rows, taken: rows, failure: null };
      // The claim goes out as one batch in seq order (ADR 0128); only what the transport took is
      // marked, and an event it did not take stays pending for the next pass, which publishes it
      // again (a repeat of one that was stored after all is dropped by its event_id).
      const outcome = await publishRows(transport, rows, (row) => row.data ?? held.get(row.event_id)!);
      const taken = rows.filter((_, i) => outcome[i] === null);
      if (taken.length)
        await tx.query(`UPDATE outbox SET dispatched_at = now() WHERE seq = ANY($1::bigint[])`, [taken.map((r) => r.seq)], { prepare: 'outbox_mark' });
      const failed = outcome.filter((o) => o !== null);
      return { rows, taken, failure: failed.length ? { count: failed.length, first: failed[0]! } : null };
    });
    // only once the marks committed: until then a retry may need the data again
    for (const row of taken) this.release(row.event_id);
    if (taken.length) published.inc({ service: this.opts.service ?? 'unknown' }, taken.length);
    // what was not taken keeps its data here for the retry, which backs off like any failure
    if (failure) throw new Error(`${failure.count} of ${rows.length} events were not published: ${failure.first.message}`, { cause: failure.first });
    // A claim short of a full batch saw every pending row nobody else had locked, and data is
    // handed over only after its commit: what it was offered and did not get, another replica's
    // relay has published or is publishing, so this one lets go of it now rather than in 60 s.
    if (rows.length < this.batchSize) for (const id of held.keys()) this.release(id);
    return rows.length;
  }
}

/**
 * Publishes claimed rows in their order, each in a producer span that continues the trace stored
 * with it, and sends the span's context on with the event (the transport's `traceparent` header):
 * the consumer continues from the publish, the publish from the write (ADR 0037). Untraced, the
 * stored value goes on. Resolves per row with null (taken) or the error; never rejects for a row.
 */
async function publishRows(transport: EventTransport, rows: readonly OutboxRow[], dataOf: (row: OutboxRow) => string | Uint8Array): Promise<(Error | null)[]> {
  // The in-process transport (no publishMany) runs its consumers inside publish: each event on its
  // own, all in flight, inside its span as before, so what the consumers do is traced under it.
  if (!transport.publishMany) return Promise.all(rows.map((row) => publishRow(transport, row, dataOf(row)).then(() => null, asError)));
  const spans = rows.map((row) => startSpan(`publish ${row.event_type}`, publishSpan(transport, row)));
  const outcome = await transport.publishMany(rows.map((row, i) => toEvent(row, dataOf(row), spans[i]!.traceparent ?? row.traceparent)));
  outcome.forEach((err, i) => (err ? failSpan(spans[i]!.span, err) : spans[i]!.span.end()));
  return outcome;
}

function publishRow(transport: EventTransport, row: OutboxRow, dataJson: string | Uint8Array): Promise<void> {
  return inSpan(`publish ${row.event_type}`, publishSpan(transport, row), () => transport.publish(toEvent(row, dataJson, traceparentOf() ?? row.traceparent)));
}

/** A producer span's options: continuing the trace stored with the row, with the messaging attributes. */
function publishSpan(transport: EventTransport, row: OutboxRow) {
  return {
    kind: SpanKind.PRODUCER,
    parent: contextFrom(row.traceparent),
    attributes: {
      ...transport.messagingAttributes(row.event_type),
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.message.id': row.event_id,
      'mp.event_type': row.event_type,
    },
  };
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

function toEvent(row: OutboxRow, dataJson: string | Uint8Array, traceparent: string | null): OutgoingEvent {
  return {
    meta: {
      event_id: row.event_id,
      event_type: row.event_type,
      tenant_id: row.tenant_id,
      environment: row.environment,
      occurred_at: row.occurred_at,
      ...(traceparent ? { traceparent } : {}),
    },
    dataJson,
  };
}
