import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { WebhooksDeps } from '../deps.js';
import { statsOf } from '../delivery-stats.js';
import { checkEvents, checkName, checkRetryPolicy, checkUrl } from '../validation.js';
import { loadWebhook, toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from '../webhook-row.js';

/** PUT /webhooks/{id}: changes only the fields present (a body holding only `events` is accepted). */
export async function updateWebhook(deps: WebhooksDeps, req: webhooks.UpdateWebhookRequest, ctx: CallerContext): Promise<webhooks.Webhook> {
  // Validate before touching the row so a refused update changes nothing.
  const name = req.name !== undefined ? checkName(req.name) : undefined;
  const url = req.url !== undefined ? await checkUrl(req.url, deps.sender.allowPrivate) : undefined;
  const events = req.events !== undefined ? checkEvents(req.events.values) : undefined;
  const row = await deps.db.transaction(async (tx) => {
    const current = await loadWebhook(tx, req.id, ctx, true);
    const policy =
      req.retryPolicy !== undefined ? checkRetryPolicy(req.retryPolicy) : { maxRetries: current.max_retries, retryInterval: current.retry_interval };
    const { rows } = await tx.query<WebhookRow>(
      `UPDATE webhooks SET name = $2, url = $3, events = $4, max_retries = $5, retry_interval = $6, active = $7,
              updated_at = now(), version = version + 1
        WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
      [current.id, name ?? current.name, url ?? current.url, events ?? current.events, policy.maxRetries, policy.retryInterval, req.active ?? current.active],
    );
    return rows[0]!;
  });
  return toWebhook(row, await statsOf(deps.db, row.id));
}
