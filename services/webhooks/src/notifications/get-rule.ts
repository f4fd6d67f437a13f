import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireProjectAccess } from './access.js';
import { loadRule, toRule } from './rule-row.js';
import type { NotificationDeps } from './settings.js';

/** GET /notification-rules/{id}: for whoever reads its project. */
export async function getRule(deps: NotificationDeps, req: webhooks.NotificationRuleRef, ctx: CallerContext): Promise<webhooks.NotificationRule> {
  const row = await loadRule(deps.db, req.id, ctx);
  await requireProjectAccess(deps, ctx, row.project_id, 'read');
  return toRule(row, deps.mailer.configured);
}
