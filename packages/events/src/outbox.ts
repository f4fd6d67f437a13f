import { utf8Param, type Queryable, type Migration } from '@mp/db';
import { newId, traceparentOf } from '@mp/kit';
import type { EventType } from './catalogue.js';
import type { EventMeta } from './envelope.js';

/** The outbox table, added to the migrations of every service that produces events. */
export const outboxMigration: Migration = {
  id: '000_outbox',
  sql: `
    CREATE TABLE IF NOT EXISTS outbox (
      seq bigserial PRIMARY KEY,
      event_id text NOT NULL UNIQUE,
      event_type text NOT NULL,
      tenant_id text NOT NULL,
      environment text NOT NULL,
      occurred_at timestamptz NOT NULL,
      -- the event's data as JSON text, handed to the transport as written; how it is stored
      -- (compression) is set by outboxTextMigration, which always runs next
      data text NOT NULL,
      traceparent text,
      attempts integer NOT NULL DEFAULT 0,
      dispatched_at timestamptz
    );
    CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (seq) WHERE dispatched_at IS NULL;
  `,
};

/**
 * The outbox's data as text, compressed with lz4 (ADR 0013, `npm run bench:outbox`).
 *
 * Text, not json (nor jsonb, as at first): every producer writes it with JSON.stringify or a
 * writer tested equal to it, so PostgreSQL's json check on insert and the json → text conversion
 * on every relay read were pure cost. lz4: a 1,000-record data.created (~300 KB) stored
 * uncompressed is ~150 TOAST chunks and as much WAL; lz4 shrinks it about tenfold for less CPU
 * than the chunks cost (pglz, the default, costs more than it saves). Together ~4 ms less
 * PostgreSQL CPU per such event. A server built without lz4 (PGlite, the embedded default) keeps
 * the payloads uncompressed.
 */
export const outboxTextMigration: Migration = {
  id: '000_outbox_text',
  sql: `
    ALTER TABLE outbox ALTER COLUMN data TYPE text;
    ALTER TABLE outbox ALTER COLUMN data SET STORAGE EXTENDED;
    DO $$
    BEGIN
      ALTER TABLE outbox ALTER COLUMN data SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported THEN
      -- no lz4 in this server: uncompressed beats pglz
      ALTER TABLE outbox ALTER COLUMN data SET STORAGE EXTERNAL;
    END $$;
  `,
};

/** Every migration of the outbox, for the migration list of a service that produces events. */
export const outboxMigrations: Migration[] = [outboxMigration, outboxTextMigration];

interface NewEventBase {
  type: EventType;
  tenantId: string;
  environment: 'live' | 'sandbox';
  traceparent?: string;
  occurredAt?: string;
}

/**
 * An event to append: its data as an object, or already serialised (`dataJson`, large payloads:
 * text, or its UTF-8 bytes, stored as the text they encode and handed to the relay as they are).
 */
export type NewEvent<D> = NewEventBase & ({ data: D } | { dataJson: string | Uint8Array });

/**
 * Writes an event into the outbox inside the caller's transaction, so the event exists if and
 * only if the change that caused it committed. Returns the event's metadata.
 */
export async function appendEvent<D extends Record<string, unknown>>(tx: Queryable, event: NewEvent<D>): Promise<EventMeta> {
  const meta = newMeta(event);
  await tx.query(
    `INSERT INTO outbox (event_id, event_type, tenant_id, environment, occurred_at, data, traceparent)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [meta.event_id, meta.event_type, meta.tenant_id, meta.environment, meta.occurred_at, dataParam(event), meta.traceparent ?? null],
    // Every write of every service runs this: planned once per connection.
    { prepare: 'outbox_append' },
  );
  return meta;
}

/**
 * Several events in one statement, in the given order (their outbox sequence follows it): for a
 * transaction that raises many at once, one round trip instead of one each.
 */
export async function appendEvents(tx: Queryable, events: readonly NewEvent<Record<string, unknown>>[]): Promise<EventMeta[]> {
  if (events.length === 0) return [];
  if (events.length === 1) return [await appendEvent(tx, events[0]!)];
  const metas = events.map(newMeta);
  await tx.query(
    `INSERT INTO outbox (event_id, event_type, tenant_id, environment, occurred_at, data, traceparent)
     SELECT event_id, event_type, tenant_id, environment, occurred_at, data, traceparent
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[])
            WITH ORDINALITY AS e(event_id, event_type, tenant_id, environment, occurred_at, data, traceparent, n)
      ORDER BY n`,
    [
      metas.map((m) => m.event_id),
      metas.map((m) => m.event_type),
      metas.map((m) => m.tenant_id),
      metas.map((m) => m.environment),
      metas.map((m) => m.occurred_at),
      events.map(dataText),
      metas.map((m) => m.traceparent ?? null),
    ],
    { prepare: 'outbox_append_many' },
  );
  return metas;
}

function newMeta<D>(event: NewEvent<D>): EventMeta {
  // The trace continues from the span writing the event (the gRPC call that changed something),
  // or, untraced, from what the client sent (ADR 0037).
  const traceparent = traceparentOf() ?? event.traceparent;
  return {
    event_id: newId('event'),
    event_type: event.type,
    tenant_id: event.tenantId,
    environment: event.environment,
    occurred_at: event.occurredAt ?? new Date().toISOString(),
    ...(traceparent ? { traceparent } : {}),
  };
}

/** The event's data as text, for a text[] parameter (bytes are decoded: they are UTF-8 JSON). */
function dataText<D>(event: NewEvent<D>): string {
  if (!('dataJson' in event)) return JSON.stringify(event.data);
  return typeof event.dataJson === 'string'
    ? event.dataJson
    : Buffer.from(event.dataJson.buffer, event.dataJson.byteOffset, event.dataJson.byteLength).toString('utf8');
}

function dataParam<D>(event: NewEvent<D>): unknown {
  if (!('dataJson' in event)) return JSON.stringify(event.data);
  return typeof event.dataJson === 'string' ? event.dataJson : utf8Param(event.dataJson);
}
