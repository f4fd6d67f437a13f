import type { webhooks } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';

export interface RuleRow {
  id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  name: string;
  levels: string[];
  recipients: string[];
  reminder_interval_s: number | null;
  escalation_after_s: number | null;
  escalation_recipients: string[];
  created_by: string;
  creator_permissions: string[];
  created_at: string | Date;
}

export const RULE_COLUMNS =
  'id, tenant_id, environment, project_id, name, levels, recipients, reminder_interval_s, escalation_after_s, escalation_recipients, created_by, creator_permissions, created_at';

export function toRule(r: RuleRow, mailConfigured: boolean): webhooks.NotificationRule {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    levels: r.levels,
    recipients: r.recipients.map((email) => ({ email })),
    ...(r.reminder_interval_s !== null ? { reminderIntervalSeconds: r.reminder_interval_s } : {}),
    ...(r.escalation_after_s !== null
      ? { escalation: { afterSeconds: r.escalation_after_s, recipients: r.escalation_recipients.map((email) => ({ email })) } }
      : {}),
    createdAt: new Date(r.created_at).toISOString(),
    createdBy: r.created_by,
    mailConfigured,
  };
}

/** A rule of the caller's tenant and environment that is not deleted: 400004 malformed, 404020 otherwise. */
export async function loadRule(q: Queryable, id: string, ctx: CallerContext, field = 'rule_id'): Promise<RuleRow> {
  if (!isId('notificationRule', id)) {
    throw new DomainError('400004', { field, detail: `${field} is not a notification rule id (ntr_…).`, suggestion: 'Use the id the API returned.' });
  }
  const { rows } = await q.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM notification_rules WHERE id = $1 AND deleted_at IS NULL`, [id]);
  const row = rows[0];
  if (!row || row.tenant_id !== ctx.tenantId || row.environment !== ctx.environment) {
    throw new DomainError('404020', {
      field,
      detail: `Notification rule ${id} does not exist.`,
      suggestion: 'List the rules with GET /v3/projects/{project_id}/notification-rules.',
    });
  }
  return row;
}
