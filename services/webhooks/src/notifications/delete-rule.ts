import type { webhooks } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireProjectAccess } from './access.js';
import { loadRule, RULE_COLUMNS, toRule, type RuleRow } from './rule-row.js';
import type { NotificationDeps } from './settings.js';

/**
 * DELETE /notification-rules/{id}: for whoever may change its project. It mails nobody from now
 * on: its reminders and escalations stop, mails not yet sent are logged as skipped, and the
 * acknowledge links of its mails stop working (404021). The row is kept (soft delete) with its log.
 */
export async function deleteRule(deps: NotificationDeps, req: webhooks.NotificationRuleRef, ctx: CallerContext): Promise<webhooks.NotificationRule> {
  const found = await loadRule(deps.db, req.id, ctx);
  await requireProjectAccess(deps, ctx, found.project_id, 'write');
  const now = deps.clock.now().toISOString();
  const row = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<RuleRow>(`UPDATE notification_rules SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL RETURNING ${RULE_COLUMNS}`, [
      found.id,
      now,
    ]);
    await tx.query(`UPDATE notified_alarms SET next_reminder_at = NULL, escalate_at = NULL WHERE rule_id = $1`, [found.id]);
    await tx.query(
      `UPDATE notification_mails SET status = 'skipped', last_error = 'rule deleted before it was sent', next_attempt_at = NULL, lease_until = NULL
        WHERE rule_id = $1 AND status = 'pending'`,
      [found.id],
    );
    return rows[0] ?? found;
  });
  return toRule(row, deps.mailer.configured);
}
