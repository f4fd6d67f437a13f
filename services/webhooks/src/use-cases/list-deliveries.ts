import type { webhooks } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import type { WebhooksDeps } from '../deps.js';
import { DELIVERY_COLUMNS, toDelivery, type DeliveryRow } from '../delivery-row.js';
import { loadWebhookAnyState } from './load-any.js';

const STATUSES = ['pending', 'delivered', 'failed'];

export async function listDeliveries(deps: WebhooksDeps, req: webhooks.ListDeliveriesRequest, ctx: CallerContext): Promise<webhooks.DeliveryList> {
  const webhook = await loadWebhookAnyState(deps, req.webhookId, ctx);
  const limit = pageLimit(req.page?.limit);
  const where = ['webhook_id = $1'];
  const params: unknown[] = [webhook.id];
  if (req.status !== undefined) {
    if (!STATUSES.includes(req.status)) throw new DomainError('422103', { field: 'status', detail: `status must be one of ${STATUSES.join(', ')}.` });
    params.push(req.status);
    where.push(`status = $${params.length}`);
  }
  if (req.eventType !== undefined) {
    params.push(req.eventType);
    where.push(`event_type = $${params.length}`);
  }
  if (req.page?.cursor) {
    const [createdAt, id] = decodeCursor(req.page.cursor);
    if (typeof createdAt !== 'string' || typeof id !== 'string') throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
    params.push(createdAt, id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const { rows } = await deps.db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [r.created_at, r.id]);
  return { items: page.items.map(toDelivery), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
