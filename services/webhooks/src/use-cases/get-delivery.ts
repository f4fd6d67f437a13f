import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { WebhooksDeps } from '../deps.js';
import { toDelivery } from '../delivery-row.js';
import { eventProject, loadDelivery } from './load-delivery.js';
import { loadWebhookToActOn } from '../webhook-row.js';

interface AttemptRow {
  attempt: number;
  cycle: number;
  started_at: string;
  duration_ms: number;
  http_status: number | null;
  outcome: string;
  error: string | null;
  redirects: number;
  retry_at: string | null;
}

/** GET /webhooks/{id}/deliveries/{delivery_id}: the record and every attempt behind it, oldest first. */
export async function getDelivery(deps: WebhooksDeps, req: webhooks.DeliveryRef, ctx: CallerContext): Promise<webhooks.DeliveryDetail> {
  const webhook = await loadWebhookToActOn(deps.db, req.webhookId, ctx);
  const delivery = await loadDelivery(deps.db, webhook.id, req.deliveryId);
  const { rows } = await deps.db.query<AttemptRow>(
    `SELECT attempt, cycle, started_at, duration_ms, http_status, outcome, error, redirects, retry_at
       FROM delivery_attempts WHERE delivery_id = $1 ORDER BY cycle, attempt`,
    [delivery.id],
  );
  const project = await eventProject(deps.db, delivery.event_id);
  return {
    ...(project ? { projectId: project } : {}),
    delivery: toDelivery(delivery),
    attempts: rows.map((a) => ({
      attempt: a.attempt,
      cycle: a.cycle,
      startedAt: a.started_at,
      durationMs: a.duration_ms,
      outcome: a.outcome,
      redirects: a.redirects,
      ...(a.http_status !== null ? { httpStatus: a.http_status } : {}),
      ...(a.error !== null ? { error: a.error } : {}),
      ...(a.retry_at !== null ? { retryAt: a.retry_at } : {}),
    })),
  };
}
