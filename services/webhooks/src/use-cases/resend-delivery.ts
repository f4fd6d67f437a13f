import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { WebhooksDeps } from '../deps.js';
import { DELIVERY_COLUMNS, toDelivery, type DeliveryRow } from '../delivery-row.js';
import { loadWebhookToActOn } from '../webhook-row.js';
import { eventProject, loadDelivery } from './load-delivery.js';
import { DomainError } from '@mp/errors';

/**
 * POST /webhooks/{id}/deliveries/{delivery_id}/resend: starts a new attempt cycle of the same
 * event for the same webhook (ADR 0009): same event_id and body, signed anew with the secret that
 * signs now; a fresh retry budget; due at once. The delivery id stays, its earlier attempts stay
 * in its history (under their cycle), and resend_count goes up by one. Any status can be resent:
 * a pending delivery is brought forward (an attempt already in flight is no longer recorded as
 * its outcome). The webhook must exist (404009); it is sent even when inactive, since someone
 * asked for it, but not when the webhook no longer takes the event's project (403001). Whether
 * the caller may read that project is the gateway's check, with the projects service (ADR 0095).
 * The answer is the delivery, pending; the attempt follows within moments.
 */
export async function resendDelivery(deps: WebhooksDeps, req: webhooks.DeliveryRef, ctx: CallerContext): Promise<webhooks.Delivery> {
  const row = await deps.db.transaction(async (tx) => {
    const webhook = await loadWebhookToActOn(tx, req.webhookId, ctx);
    const current = await loadDelivery(tx, webhook.id, req.deliveryId, true);
    // A webhook narrowed to other projects since (ADR 0064) no longer carries this project's
    // events to its receiver: not even again.
    const project = await eventProject(tx, current.event_id);
    if (webhook.project_ids !== null && (project === null || !webhook.project_ids.includes(project))) {
      throw new DomainError('403001', {
        field: 'delivery_id',
        detail: `Webhook ${webhook.id} no longer receives ${project ? `the events of project ${project}` : 'events of no project'} (its project_ids), so delivery ${current.id} is not sent again.`,
        suggestion: "Add the project to the webhook's project_ids (PUT /webhooks/{webhook_id}) to send its events to this receiver again.",
      });
    }
    const { rows } = await tx.query<DeliveryRow>(
      `UPDATE deliveries SET status = 'pending', cycle = cycle + 1, attempts = 0, next_attempt_at = now(), lease_until = NULL,
              http_status = NULL, duration_ms = NULL, error = NULL, delivered_at = NULL, failed_at = NULL, updated_at = now()
        WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`,
      [current.id],
    );
    return rows[0]!;
  });
  deps.wakeWorker();
  return toDelivery(row);
}
