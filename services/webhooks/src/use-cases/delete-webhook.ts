import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { WebhooksDeps } from '../deps.js';
import { statsOf } from '../delivery-stats.js';
import { loadWebhookToActOn, toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from '../webhook-row.js';

/**
 * Deletes a webhook: it stops receiving events at once and its pending deliveries are closed as
 * failed. The row is kept (soft delete) for audits; the API answers 404009 for it and its deliveries.
 */
export async function deleteWebhook(deps: WebhooksDeps, req: webhooks.WebhookRef, ctx: CallerContext): Promise<webhooks.Webhook> {
  const row = await deps.db.transaction(async (tx) => {
    const current = await loadWebhookToActOn(tx, req.id, ctx, true);
    const { rows } = await tx.query<WebhookRow>(
      `UPDATE webhooks SET deleted_at = now(), active = false, updated_at = now(), version = version + 1 WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
      [current.id],
    );
    await tx.query(
      `UPDATE deliveries SET status = 'failed', failed_at = now(), error = 'webhook deleted', lease_until = NULL, next_attempt_at = NULL, updated_at = now()
        WHERE webhook_id = $1 AND status = 'pending'`,
      [current.id],
    );
    return rows[0]!;
  });
  return toWebhook(row, await statsOf(deps.db, row.id));
}
