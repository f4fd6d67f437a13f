import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';
import { isId } from '@mp/kit';
import { DELIVERY_COLUMNS, type DeliveryRow } from '../delivery-row.js';

/** A delivery of the given (already authorised) webhook; one of another webhook is reported missing. */
export async function loadDelivery(q: Queryable, webhookId: string, deliveryId: string, forUpdate = false): Promise<DeliveryRow> {
  if (!isId('delivery', deliveryId)) {
    throw new DomainError('400004', {
      field: 'delivery_id',
      detail: 'delivery_id is not a delivery id (del_…).',
      suggestion: 'Use a delivery_id from GET /webhooks/{webhook_id}/deliveries.',
    });
  }
  const { rows } = await q.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = $1 AND webhook_id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    deliveryId,
    webhookId,
  ]);
  if (!rows[0]) {
    throw new DomainError('404011', {
      field: 'delivery_id',
      detail: `Delivery ${deliveryId} does not exist for webhook ${webhookId}.`,
      suggestion: "List the webhook's deliveries with GET /webhooks/{webhook_id}/deliveries.",
    });
  }
  return rows[0];
}

/** The project an event belongs to (`data.project_id`), null for an event of no project. */
export async function eventProject(q: Queryable, eventId: string): Promise<string | null> {
  const { rows } = await q.query<{ project_id: string | null }>(`SELECT data ->> 'project_id' AS project_id FROM events WHERE event_id = $1`, [eventId]);
  return rows[0]?.project_id ?? null;
}
