import { NOTIFICATION_STATUSES, type webhooks } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import { requireProjectAccess } from './access.js';
import { MAIL_COLUMNS, toMail, type MailRow } from './mail-row.js';
import { loadRule } from './rule-row.js';
import type { NotificationDeps } from './settings.js';

/** GET /notification-rules/{id}/deliveries: the rule's delivery log, newest first; status= filters. */
export async function listMails(
  deps: NotificationDeps,
  req: webhooks.ListNotificationMailsRequest,
  ctx: CallerContext,
): Promise<webhooks.NotificationMailList> {
  if (req.status !== undefined && !(NOTIFICATION_STATUSES as readonly string[]).includes(req.status)) {
    throw new DomainError('400001', {
      field: 'status',
      detail: `${excerpt(req.status)} is not a delivery status.`,
      suggestion: `Use one of: ${NOTIFICATION_STATUSES.join(', ')}.`,
    });
  }
  const rule = await loadRule(deps.db, req.ruleId, ctx);
  await requireProjectAccess(deps, ctx, rule.project_id, 'read');
  const limit = pageLimit(req.page?.limit);
  const params: unknown[] = [rule.id];
  let filter = '';
  if (req.status !== undefined) {
    params.push(req.status);
    filter += ` AND status = $${params.length}`;
  }
  if (req.page?.cursor) {
    const [createdAt, id] = decodeCursor(req.page.cursor);
    params.push(String(createdAt), String(id));
    filter += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`;
  }
  params.push(limit + 1);
  const { rows } = await deps.db.query<MailRow>(
    `SELECT ${MAIL_COLUMNS} FROM notification_mails WHERE rule_id = $1${filter} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [new Date(r.created_at).toISOString(), r.id]);
  return { items: page.items.map(toMail), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
