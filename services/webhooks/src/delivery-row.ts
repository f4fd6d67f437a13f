import type { webhooks } from '@mp/contracts';

export interface DeliveryRow {
  id: string;
  event_id: string;
  webhook_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  cycle: number;
  next_attempt_at: string | null;
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  created_at: string;
}

export const DELIVERY_COLUMNS =
  'id, event_id, webhook_id, event_type, status, attempts, cycle, next_attempt_at, http_status, duration_ms, error, delivered_at, failed_at, created_at';

/**
 * The delivery record (docs/rules.md#delivery-record). `retry_count` is the number of attempts after the first in
 * the current cycle (a resend starts a new cycle). Delivered records carry delivered_at and
 * duration_ms; failed ones error, retry_count and failed_at; pending ones (retries still to come)
 * next_attempt_at and the last error.
 */
export function toDelivery(row: DeliveryRow): webhooks.Delivery {
  const d: webhooks.Delivery = {
    deliveryId: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    webhookId: row.webhook_id,
    status: row.status,
    retryCount: Math.max(0, row.attempts - 1),
    createdAt: row.created_at,
    resendCount: row.cycle - 1,
  };
  if (row.http_status !== null) d.httpStatus = row.http_status;
  if (row.status === 'delivered') {
    if (row.delivered_at) d.deliveredAt = row.delivered_at;
    if (row.duration_ms !== null) d.durationMs = row.duration_ms;
  } else {
    if (row.error !== null) d.error = row.error;
    if (row.failed_at) d.failedAt = row.failed_at;
    if (row.next_attempt_at && row.status === 'pending') d.nextAttemptAt = row.next_attempt_at;
  }
  return d;
}
