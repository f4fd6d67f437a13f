import type { Database } from '@mp/db';
import { contextFrom, failSpan, SpanKind, startSpan } from '@mp/kit';
import { dataAtHand, dataJsonOf, dataSizeOf, loadEventData, type DomainEvent } from '@mp/events';
import type { WebhooksDeps } from './deps.js';
import { TurnBatch } from './turn-batch.js';

/** (tenant, environment, event type) as one string, for matching events to subscriptions. */
const routeKey = (tenant: string, environment: string, type: string) => `${tenant}\u0000${environment}\u0000${type}`;

/** Above this much event data in a batch, subscriptions are looked up before any data is sent. */
const PRECHECK_ABOVE_BYTES = 64 * 1024;
/** Event bodies fetched from the stream at once (each up to ~1 MB). */
const LOADS_AT_ONCE = 16;

/** Indexes of the events some active webhook of their tenant and environment subscribes to. */
async function subscribedOnly(db: Database, events: DomainEvent[]): Promise<number[]> {
  const scopes = [...new Map(events.map((e) => [`${e.tenant_id}\u0000${e.environment}`, e])).values()];
  const { rows: routes } = await db.query<{ tenant_id: string; environment: string; event_type: string }>(
    `SELECT DISTINCT w.tenant_id, w.environment, t.event_type
       FROM unnest($1::text[], $2::text[]) AS s(tenant_id, environment)
       JOIN webhooks w ON w.tenant_id = s.tenant_id AND w.environment = s.environment AND w.active AND w.deleted_at IS NULL
       CROSS JOIN LATERAL unnest(w.events) AS t(event_type)`,
    [scopes.map((e) => e.tenant_id), scopes.map((e) => e.environment)],
  );
  const wanted = new Set(routes.map((r) => routeKey(r.tenant_id, r.environment, r.event_type)));
  const kept: number[] = [];
  events.forEach((e, i) => wanted.has(routeKey(e.tenant_id, e.environment, e.event_type)) && kept.push(i));
  return kept;
}

/**
 * Stores events taken from the transport and creates a pending delivery for every active webhook
 * of each event's tenant and environment subscribed to its type (and, when the webhook is limited
 * to projects, to the event's project), atomically, in one statement for
 * the batch. Only after this commits are the events acknowledged, so a crash before that gets them
 * again; the event_id primary key makes a repeated event a no-op.
 *
 * Most data.* events have no subscriber, and their payloads run to hundreds of KB. The consumer
 * takes them with data on demand (the stream delivers metadata, and data only when small), and for
 * a batch carrying much data, or data not delivered, a first, small query finds which (tenant,
 * environment, type) of the batch anyone subscribes to: only those events' data is fetched and
 * goes to PostgreSQL (as the JSON text it arrived in, never parsed here, and not even decoded for
 * the others). The insert itself keeps only subscribed events either way.
 */
export async function ingestEvents(
  db: Database,
  events: DomainEvent[],
  traceparents: (string | undefined)[] = [],
): Promise<{ stored: number; created: number }> {
  let bytes = 0;
  let allAtHand = true;
  for (const e of events) {
    bytes += dataSizeOf(e);
    allAtHand &&= dataAtHand(e);
  }
  // Small batches at hand go straight to the insert (one round trip); the look-up pays off when
  // it can spare PostgreSQL a lot of data, or spare fetching it.
  const kept = bytes > PRECHECK_ABOVE_BYTES || !allAtHand ? await subscribedOnly(db, events) : events.map((_, i) => i);
  if (kept.length === 0) return { stored: 0, created: 0 };
  for (let i = 0; i < kept.length; i += LOADS_AT_ONCE) await Promise.all(kept.slice(i, i + LOADS_AT_ONCE).map((k) => loadEventData(events[k]!)));
  const { rows } = await db.query<{ stored: number; created: number }>(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[])
         AS t(event_id, event_type, tenant_id, environment, occurred_at, data, traceparent)
     ), stored AS (
       INSERT INTO events (event_id, event_type, tenant_id, environment, occurred_at, data, traceparent)
       SELECT i.event_id, i.event_type, i.tenant_id, i.environment, i.occurred_at, i.data::jsonb, i.traceparent FROM input i
        WHERE EXISTS (SELECT 1 FROM webhooks w
                       WHERE w.tenant_id = i.tenant_id AND w.environment = i.environment AND w.active AND w.deleted_at IS NULL AND i.event_type = ANY (w.events))
       ON CONFLICT (event_id) DO NOTHING
       RETURNING event_id, event_type, tenant_id, environment, data ->> 'project_id' AS project_id
     ), created AS (
       -- A webhook limited to projects (ADR 0064) gets only their events; an event naming no
       -- project reaches only webhooks of every project.
       INSERT INTO deliveries (id, event_id, webhook_id, tenant_id, environment, event_type, next_attempt_at)
       SELECT 'del_' || substr(md5(random()::text || clock_timestamp()::text || w.id || s.event_id), 1, 20), s.event_id, w.id, w.tenant_id, w.environment, s.event_type, now()
         FROM stored s JOIN webhooks w
           ON w.tenant_id = s.tenant_id AND w.environment = s.environment AND w.active AND w.deleted_at IS NULL AND s.event_type = ANY (w.events)
          AND (w.project_ids IS NULL OR s.project_id = ANY (w.project_ids))
       RETURNING 1
     )
     SELECT (SELECT count(*)::int FROM stored) AS stored, (SELECT count(*)::int FROM created) AS created`,
    [
      kept.map((i) => events[i]!.event_id),
      kept.map((i) => events[i]!.event_type),
      kept.map((i) => events[i]!.tenant_id),
      kept.map((i) => events[i]!.environment),
      kept.map((i) => events[i]!.occurred_at),
      kept.map((i) => dataJsonOf(events[i]!)),
      kept.map((i) => traceparents[i] ?? events[i]!.traceparent ?? null),
    ],
    { prepare: 'webhooks_ingest' },
  );
  return rows[0]!;
}

interface Arrived {
  event: DomainEvent;
  /** The consumer span's context, stored with the event for its deliveries. */
  traceparent: string | undefined;
}

/**
 * Gathers the events that the consumer's parallel handlers hand over while the previous batch is
 * being committed into the next batch: one commit for many events, where one commit per event
 * (each waiting for the disk) would cap the service at a few hundred events a second. Each
 * handler's promise settles with its batch, so an event is acknowledged only once committed.
 */
export class EventIngester {
  private readonly batches: TurnBatch<Arrived, void>;

  constructor(
    private readonly deps: Pick<WebhooksDeps, 'db' | 'wakeWorker' | 'metrics'>,
    maxBatch = 500,
  ) {
    this.batches = new TurnBatch((arrived) => this.store(arrived), maxBatch);
  }

  /** `messaging` holds the transport's attributes of the event (system, destination, consumer group). */
  ingest(event: DomainEvent, messaging: Record<string, string> = {}): Promise<void> {
    // A consumer span per event, continuing the publish, from its arrival until its batch committed.
    const { span, traceparent } = startSpan(`receive ${event.event_type}`, {
      kind: SpanKind.CONSUMER,
      parent: contextFrom(event.traceparent),
      attributes: {
        ...messaging,
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.message.id': event.event_id,
        'mp.event_type': event.event_type,
      },
    });
    return this.batches.add({ event, traceparent }).then(
      () => span.end(),
      (err: unknown) => {
        failSpan(span, err);
        throw err;
      },
    );
  }

  private async store(arrived: Arrived[]): Promise<void[]> {
    // A redelivered event can sit in the same batch as its first copy; keep one.
    const unique = [...new Map(arrived.map((a) => [a.event.event_id, a])).values()];
    const { stored, created } = await ingestEvents(
      this.deps.db,
      unique.map((a) => a.event),
      unique.map((a) => a.traceparent),
    );
    this.deps.metrics.eventsIngested.inc(stored);
    if (created > 0) {
      this.deps.metrics.deliveriesCreated.inc(created);
      this.deps.wakeWorker();
    }
    return arrived.map(() => undefined);
  }
}
