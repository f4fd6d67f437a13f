import type { Queryable } from '@mp/db';
import { newId } from '@mp/kit';
import { subjectOf, type AlarmSnapshot, type MailKind } from './message.js';
import type { NotificationDeps } from './settings.js';

export interface RuleScope {
  id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
}

/**
 * Adds one mail per recipient for one step of an alarm (`opened`, `escalated:alarm`, `reminder:2`,
 * `escalation`), in the caller's transaction. The unique key (rule, alarm, step, recipient) makes
 * a step that is handled twice (a redelivered event, two replicas) add nothing the second time.
 * Without MP_SMTP_URL the mails are logged as skipped, so the log shows what would have gone.
 * Returns how many mails were added.
 */
export async function enqueueMails(
  tx: Queryable,
  deps: Pick<NotificationDeps, 'mailer' | 'settings'>,
  rule: RuleScope,
  alarm: AlarmSnapshot,
  kind: MailKind,
  step: string,
  recipients: readonly string[],
  now: Date,
): Promise<number> {
  if (recipients.length === 0) return 0;
  const configured = deps.mailer.configured;
  const { rowCount } = await tx.query(
    `INSERT INTO notification_mails (id, rule_id, tenant_id, environment, project_id, alarm_id, kind, step, recipient, alarm, subject, status,
                                     next_attempt_at, last_error, ack_expires_at, created_at)
     SELECT r.id, $2, $3, $4, $5, $6, $7, $8, r.recipient, $9::jsonb, $10, $11, $12, $13, $14, $12
       FROM unnest($1::text[], $15::text[]) AS r(id, recipient)
     ON CONFLICT ON CONSTRAINT notification_mails_once DO NOTHING`,
    [
      recipients.map(() => newId('notification')),
      rule.id,
      rule.tenant_id,
      rule.environment,
      rule.project_id,
      alarm.alarm_id,
      kind,
      step,
      JSON.stringify(alarm),
      subjectOf(kind, alarm),
      configured ? 'pending' : 'skipped',
      now.toISOString(),
      configured ? null : 'mail is not configured (MP_SMTP_URL is unset)',
      new Date(now.getTime() + deps.settings.ackLinkMs).toISOString(),
      recipients,
    ],
  );
  return rowCount;
}
