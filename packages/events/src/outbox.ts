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
      -- json, not jsonb: the text is kept as written and handed to the transport unparsed (the
      -- relay reads data::text). Databases made when this was jsonb keep working unchanged.
      data json NOT NULL,
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
