import type { Queryable, Migration } from '@mp/db';
import { newId } from '@mp/kit';
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
      -- the event's data as JSON text, handed to the transport as written (see outboxTextMigration)
      data text NOT NULL,
      traceparent text,
      attempts integer NOT NULL DEFAULT 0,
      dispatched_at timestamptz
    );
    CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (seq) WHERE dispatched_at IS NULL;
    -- Payloads (up to ~300 KB for 1,000 data records) live for seconds before the relay sends
    -- them: compressing each on insert and decompressing it on read cost more CPU than the
    -- bytes it saves.
    ALTER TABLE outbox ALTER COLUMN data SET STORAGE EXTERNAL;
  `,
};

/**
 * The outbox's data becomes text (it was jsonb, then json): every producer writes it with
 * JSON.stringify or a writer tested equal to it, so PostgreSQL's json check on insert and the
 * json → text conversion on every relay read were pure cost — 2.7 ms of PostgreSQL CPU per
 * 1,000-record data.created event (bench/ingest, ADR 0013). Tables made by '000_outbox' before
 * this change are converted here; new ones are made as text.
 */
export const outboxTextMigration: Migration = {
  id: '000_outbox_text',
  sql: `
    ALTER TABLE outbox ALTER COLUMN data TYPE text;
    ALTER TABLE outbox ALTER COLUMN data SET STORAGE EXTERNAL;
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

/** An event to append: its data as an object, or already serialised (`dataJson`, large payloads). */
export type NewEvent<D> = NewEventBase & ({ data: D } | { dataJson: string });

/**
 * Writes an event into the outbox inside the caller's transaction, so the event exists if and
 * only if the change that caused it committed. Returns the event's metadata.
 */
export async function appendEvent<D extends Record<string, unknown>>(tx: Queryable, event: NewEvent<D>): Promise<EventMeta> {
  const meta: EventMeta = {
    event_id: newId('event'),
    event_type: event.type,
    tenant_id: event.tenantId,
    environment: event.environment,
    occurred_at: event.occurredAt ?? new Date().toISOString(),
    ...(event.traceparent ? { traceparent: event.traceparent } : {}),
  };
  await tx.query(
    `INSERT INTO outbox (event_id, event_type, tenant_id, environment, occurred_at, data, traceparent)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [meta.event_id, meta.event_type, meta.tenant_id, meta.environment, meta.occurred_at, 'dataJson' in event ? event.dataJson : JSON.stringify(event.data), meta.traceparent ?? null],
    // Every write of every service runs this: planned once per connection.
    { prepare: 'outbox_append' },
  );
  return meta;
}
