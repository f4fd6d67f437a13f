import type { Queryable, Migration } from '@mp/db';
import { newId } from '@mp/kit';
import type { DomainEvent, EventType } from './catalogue.js';

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
      data jsonb NOT NULL,
      traceparent text,
      attempts integer NOT NULL DEFAULT 0,
      dispatched_at timestamptz
    );
    CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (seq) WHERE dispatched_at IS NULL;
  `,
};

export interface NewEvent<D> {
  type: EventType;
  tenantId: string;
  environment: 'live' | 'sandbox';
  data: D;
  traceparent?: string;
  occurredAt?: string;
}

/**
 * Writes an event into the outbox inside the caller's transaction, so the event exists if and
 * only if the change that caused it committed.
 */
export async function appendEvent<D extends Record<string, unknown>>(tx: Queryable, event: NewEvent<D>): Promise<DomainEvent<D>> {
  const row: DomainEvent<D> = {
    event_id: newId('event'),
    event_type: event.type,
    tenant_id: event.tenantId,
    environment: event.environment,
    occurred_at: event.occurredAt ?? new Date().toISOString(),
    data: event.data,
    ...(event.traceparent ? { traceparent: event.traceparent } : {}),
  };
  await tx.query(
    `INSERT INTO outbox (event_id, event_type, tenant_id, environment, occurred_at, data, traceparent)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [row.event_id, row.event_type, row.tenant_id, row.environment, row.occurred_at, JSON.stringify(row.data), row.traceparent ?? null],
  );
  return row;
}
