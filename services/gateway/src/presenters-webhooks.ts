import type { webhooks } from '@mp/contracts';

/** API shapes (snake_case JSON) of the webhooks service's messages. */
export const presentWebhooks = {
  webhook: (w: webhooks.Webhook) => ({
    id: w.id,
    name: w.name,
    url: w.url,
    events: w.events,
    project_ids: w.projectIds ? w.projectIds.values : null,
    retry_policy: { max_retries: w.retryPolicy?.maxRetries ?? 3, retry_interval: w.retryPolicy?.retryInterval ?? 5 },
    active: w.active,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    success_rate: w.successRate ?? null,
    delivery_stats: w.deliveryStats
      ? { window_hours: w.deliveryStats.windowHours, delivered: w.deliveryStats.delivered, failed: w.deliveryStats.failed, pending: w.deliveryStats.pending }
      : null,
    secret_rotation: w.secretRotation ? { rotated_at: w.secretRotation.rotatedAt, new_secret_signs_from: w.secretRotation.newSecretSignsFrom } : null,
  }),
  /** docs/rules.md#delivery-record: fields present by status (delivered: delivered_at, duration_ms; failed: error, retry_count, failed_at). */
  delivery: (d: webhooks.Delivery) => ({
    delivery_id: d.deliveryId,
    event_id: d.eventId,
    event_type: d.eventType,
    webhook_id: d.webhookId,
    status: d.status,
    http_status: d.httpStatus ?? null,
    ...(d.status === 'delivered' ? { delivered_at: d.deliveredAt ?? null, duration_ms: d.durationMs ?? null } : {}),
    ...(d.status !== 'delivered' ? { error: d.error ?? null, retry_count: d.retryCount } : {}),
    ...(d.status === 'failed' ? { failed_at: d.failedAt ?? null } : {}),
    ...(d.status === 'pending' ? { next_attempt_at: d.nextAttemptAt ?? null } : {}),
    resend_count: d.resendCount,
    created_at: d.createdAt,
  }),
  /** One attempt behind a delivery; retry_at is when the next one was scheduled (outcome retry). */
  deliveryAttempt: (a: webhooks.Attempt) => ({
    attempt: a.attempt,
    cycle: a.cycle,
    started_at: a.startedAt,
    duration_ms: a.durationMs,
    http_status: a.httpStatus ?? null,
    outcome: a.outcome,
    error: a.error ?? null,
    redirects: a.redirects,
    retry_at: a.retryAt ?? null,
  }),
};
