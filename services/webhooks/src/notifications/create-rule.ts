import type { webhooks } from '@mp/contracts';
import { createOnce, type Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { requireProjectAccess, requireRuleMakerPermissions } from './access.js';
import { checkRuleInput, MAX_RULES_PER_PROJECT } from './rule-input.js';
import { RULE_COLUMNS, toRule, type RuleRow } from './rule-row.js';
import type { NotificationDeps } from './settings.js';

/**
 * POST /projects/{id}/notification-rules: the caller must be able to change the project (403001,
 * 403002) and hold data:read and data:write (401004), since the rule's mails carry the project's
 * readings and links that acknowledge its alarms. Without MP_SMTP_URL the rule is kept all the
 * same (`mail_configured: false`).
 */
export async function createRule(deps: NotificationDeps, req: webhooks.CreateNotificationRuleRequest, ctx: CallerContext): Promise<webhooks.NotificationRule> {
  requireRuleMakerPermissions(ctx);
  const input = checkRuleInput(req, deps.settings.minIntervalSeconds);
  await requireProjectAccess(deps, ctx, req.projectId, 'write');
  const insert = async (tx: Queryable) => {
    const { rows: count } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM notification_rules WHERE tenant_id = $1 AND environment = $2 AND project_id = $3 AND deleted_at IS NULL',
      [ctx.tenantId, ctx.environment, req.projectId],
    );
    if ((count[0]?.n ?? 0) >= MAX_RULES_PER_PROJECT) {
      throw new DomainError('422105', {
        detail: `A project can hold at most ${MAX_RULES_PER_PROJECT} notification rules.`,
        suggestion: 'Delete a rule you no longer use, or add recipients to an existing one.',
      });
    }
    const { rows } = await tx.query<RuleRow>(
      `INSERT INTO notification_rules (id, tenant_id, environment, project_id, name, levels, recipients, reminder_interval_s, escalation_after_s,
                                       escalation_recipients, created_by, creator_permissions, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${RULE_COLUMNS}`,
      [
        newId('notificationRule'),
        ctx.tenantId,
        ctx.environment,
        req.projectId,
        input.name,
        input.levels,
        input.recipients,
        input.reminderIntervalS,
        input.escalationAfterS,
        input.escalationRecipients,
        ctx.principalId,
        ctx.permissions,
        deps.clock.now().toISOString(),
      ],
    );
    return toRule(rows[0]!, deps.mailer.configured);
  };
  return createOnce(deps.db, deps.clock.now(), ctx, 'CreateNotificationRule', req, insert);
}
