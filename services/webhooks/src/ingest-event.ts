import type { DomainEvent } from '@mp/events';
import type { WebhooksDeps } from './deps.js';

/**
 * Takes one event from the transport: stores it and creates a pending delivery for every active
 * webhook of its tenant and environment subscribed to its type, in one transaction. Only after
 * this commits is the event acknowledged, so a crash before that gets the event again; the
 * event_id primary key makes a repeated event a no-op.
 */
export async function ingestEvent(deps: Pick<WebhooksDeps, 'db' | 'wakeWorker'>, event: DomainEvent): Promise<number> {
  const created = await deps.db.transaction(async (tx) => {
    const inserted = await tx.query(
      `INSERT INTO events (event_id, event_type, tenant_id, environment, occurred_at, data)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (event_id) DO NOTHING`,
      [event.event_id, event.event_type, event.tenant_id, event.environment, event.occurred_at, JSON.stringify(event.data)],
    );
    if (inserted.rowCount === 0) return 0;
    const { rowCount } = await tx.query(
      `INSERT INTO deliveries (id, event_id, webhook_id, tenant_id, environment, event_type, next_attempt_at)
       SELECT 'del_' || substr(md5(random()::text || clock_timestamp()::text || w.id), 1, 20), $1, w.id, w.tenant_id, w.environment, $2, now()
         FROM webhooks w
        WHERE w.tenant_id = $3 AND w.environment = $4 AND w.active AND w.deleted_at IS NULL AND $2 = ANY (w.events)
       ON CONFLICT (event_id, webhook_id) DO NOTHING`,
      [event.event_id, event.event_type, event.tenant_id, event.environment],
    );
    return rowCount;
  });
  if (created > 0) deps.wakeWorker();
  return created;
}
