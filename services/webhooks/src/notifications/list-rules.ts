import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import { requireProjectAccess } from './access.js';
import { RULE_COLUMNS, toRule, type RuleRow } from './rule-row.js';
import type { NotificationDeps } from './settings.js';

/** GET /projects/{id}/notification-rules: newest first, for whoever reads the project. */
export async function listRules(
  deps: NotificationDeps,
  req: webhooks.ListNotificationRulesRequest,
  ctx: CallerContext,
): Promise<webhooks.NotificationRuleList> {
  await requireProjectAccess(deps, ctx, req.projectId, 'read');
  const limit = pageLimit(req.page?.limit);
  const params: unknown[] = [ctx.tenantId, ctx.environment, req.projectId];
  let after = '';
  if (req.page?.cursor) {
    const [createdAt, id] = decodeCursor(req.page.cursor);
    params.push(String(createdAt), String(id));
    after = ' AND (created_at, id) < ($4::timestamptz, $5)';
  }
  params.push(limit + 1);
  const { rows } = await deps.db.query<RuleRow>(
    `SELECT ${RULE_COLUMNS} FROM notification_rules WHERE tenant_id = $1 AND environment = $2 AND project_id = $3 AND deleted_at IS NULL${after}
      ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [new Date(r.created_at).toISOString(), r.id]);
  return {
    items: page.items.map((r) => toRule(r, deps.mailer.configured)),
    page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) },
    mailConfigured: deps.mailer.configured,
  };
}
