import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { WebhooksDeps } from '../deps.js';
import { statsOf } from '../delivery-stats.js';
import { loadWebhook, toWebhook } from '../webhook-row.js';

export async function getWebhook(deps: WebhooksDeps, req: webhooks.WebhookRef, ctx: CallerContext): Promise<webhooks.Webhook> {
  const row = await loadWebhook(deps.db, req.id, ctx);
  return toWebhook(row, await statsOf(deps.db, row.id));
}
