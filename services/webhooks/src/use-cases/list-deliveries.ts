import type { webhooks } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import type { WebhooksDeps } from '../deps.js';
import { checkEnum, checkInstant, checkRange, DELIVERY_EVENT_TYPES, DELIVERY_STATUSES } from '../delivery-filters.js';
import { DELIVERY_COLUMNS, toDelivery, type DeliveryRow } from '../delivery-row.js';
import { loadWebhookToActOn } from '../webhook-row.js';

/**
 * GET /webhooks/{id}/deliveries: newest first, cursor-paginated, filtered by status, event_type
 * and created_at in [from, to). A cursor stays valid with the same filters. A deleted webhook is
 * 404009 here as at GET /webhooks/{id}; its rows stay in the database for audits.
 */
export async function listDeliveries(deps: WebhooksDeps, req: webhooks.ListDeliveriesRequest, ctx: CallerContext): Promise<webhooks.DeliveryList> {
  const webhook = await loadWebhookToActOn(deps.db, req.webhookId, ctx);
  const limit = pageLimit(req.page?.limit);
  const where = ['webhook_id = $1'];
  const params: unknown[] = [webhook.id];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  if (req.status !== undefined) add((n) => `status = $${n}`, checkEnum(req.status, DELIVERY_STATUSES, 'status'));
  if (req.eventType !== undefined) add((n) => `event_type = $${n}`, checkEnum(req.eventType, DELIVERY_EVENT_TYPES, 'event_type'));
  const from = req.from !== undefined ? checkInstant(req.from, 'from') : undefined;
  const to = req.to !== undefined ? checkInstant(req.to, 'to') : undefined;
  checkRange(from, to);
  if (from !== undefined) add((n) => `created_at >= $${n}::timestamptz`, from);
  if (to !== undefined) add((n) => `created_at < $${n}::timestamptz`, to);
  if (req.page?.cursor) {
    const [createdAt, id] = decodeCursor(req.page.cursor);
    if (typeof createdAt !== 'string' || typeof id !== 'string')
      throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
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
