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
  // The trace continues from the span writing the event (the gRPC call that changed something),
  // or, untraced, from what the client sent (ADR 0037).
  const traceparent = traceparentOf() ?? event.traceparent;
  const meta: EventMeta = {
    event_id: newId('event'),
    event_type: event.type,
    tenant_id: event.tenantId,
    environment: event.environment,
    occurred_at: event.occurredAt ?? new Date().toISOString(),
    ...(traceparent ? { traceparent } : {}),
  };
  await tx.query(
    `INSERT INTO outbox (event_id, event_type, tenant_id, environment, occurred_at, data, traceparent)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [meta.event_id, meta.event_type, meta.tenant_id, meta.environment, meta.occurred_at, dataParam(event), meta.traceparent ?? null],
    // Every write of every service runs this: planned once per connection.
    { prepare: 'outbox_append' },
  );
  return meta;
}

function dataParam<D>(event: NewEvent<D>): unknown {
  if (!('dataJson' in event)) return JSON.stringify(event.data);
  return typeof event.dataJson === 'string' ? event.dataJson : utf8Param(event.dataJson);
}
