import type { identity, projects, webhooks } from '@mp/contracts';

/** API shapes (snake_case JSON) of the contract messages. */
export const present = {
  project: (p: projects.Project) => ({
    id: p.id,
    number: p.number,
    name: p.name,
    description: p.description ?? null,
    status: p.status,
    start_date: p.startDate ?? null,
    end_date: p.endDate ?? null,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    version: p.version,
  }),
  apiKey: (k: identity.ApiKey) => ({
    id: k.id,
    name: k.name,
    permissions: k.permissions,
    environment: k.environment,
    prefix: k.prefix,
    created_at: k.createdAt,
    expires_at: k.expiresAt ?? null,
    revoked_at: k.revokedAt ?? null,
    last_used_at: k.lastUsedAt ?? null,
  }),
  token: (t: identity.TokenResponse) => ({
    access_token: t.accessToken,
    token_type: t.tokenType,
    expires_in: t.expiresIn,
    refresh_token: t.refreshToken,
    scope: t.scope,
  }),
  webhook: (w: webhooks.Webhook) => ({
    id: w.id,
    name: w.name,
    url: w.url,
    events: w.events,
    retry_policy: { max_retries: w.retryPolicy?.maxRetries ?? 3, retry_interval: w.retryPolicy?.retryInterval ?? 5 },
    active: w.active,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  }),
  /** Spec §2.4: fields present by status (delivered: delivered_at, duration_ms; failed: error, retry_count, failed_at). */
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
    created_at: d.createdAt,
  }),
};
