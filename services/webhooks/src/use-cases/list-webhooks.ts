import type { webhooks } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import type { WebhooksDeps } from '../deps.js';
import { deliveryStats } from '../delivery-stats.js';
import { toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from '../webhook-row.js';

export async function listWebhooks(deps: WebhooksDeps, req: webhooks.ListWebhooksRequest, ctx: CallerContext): Promise<webhooks.WebhookList> {
  const limit = pageLimit(req.page?.limit);
  const params: unknown[] = [ctx.tenantId, ctx.environment];
  let after = '';
  if (req.page?.cursor) {
    const [createdAt, id] = decodeCursor(req.page.cursor);
    if (typeof createdAt !== 'string' || typeof id !== 'string')
      throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
    params.push(createdAt, id);
    after = ' AND (created_at, id) < ($3::timestamptz, $4)';
  }
  params.push(limit + 1);
  const { rows } = await deps.db.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE tenant_id = $1 AND environment = $2 AND deleted_at IS NULL${after}
      ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [r.created_at, r.id]);
  const stats = await deliveryStats(
    deps.db,
    page.items.map((r) => r.id),
  );
  return {
    items: page.items.map((r) => toWebhook(r, stats.get(r.id)!)),
    page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) },
  };
}
