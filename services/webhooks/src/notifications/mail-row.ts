import type { webhooks } from '@mp/contracts';
import type { AlarmSnapshot, MailKind } from './message.js';

export interface MailRow {
  id: string;
  rule_id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  alarm_id: string;
  kind: MailKind;
  step: string;
  recipient: string;
  alarm: AlarmSnapshot;
  subject: string;
  status: string;
  attempts: number;
  next_attempt_at: string | Date | null;
  last_error: string | null;
  smtp_response: string | null;
  sent_at: string | Date | null;
  ack_expires_at: string | Date;
  ack_used_at: string | Date | null;
  created_at: string | Date;
}

export const MAIL_COLUMNS =
  'id, rule_id, tenant_id, environment, project_id, alarm_id, kind, step, recipient, alarm, subject, status, attempts, next_attempt_at, last_error, smtp_response, sent_at, ack_expires_at, ack_used_at, created_at';

const iso = (v: string | Date) => new Date(v).toISOString();

export function toMail(r: MailRow): webhooks.NotificationMail {
  return {
    id: r.id,
    ruleId: r.rule_id,
    alarmId: r.alarm_id,
    kind: r.kind,
    recipient: r.recipient,
    subject: r.subject,
    status: r.status,
    attempts: r.attempts,
    ...(r.last_error !== null ? { lastError: r.last_error } : {}),
    ...(r.smtp_response !== null ? { smtpResponse: r.smtp_response } : {}),
    ...(r.sent_at !== null ? { sentAt: iso(r.sent_at) } : {}),
    ...(r.status === 'pending' && r.next_attempt_at !== null ? { nextAttemptAt: iso(r.next_attempt_at) } : {}),
    ...(r.ack_used_at !== null ? { acknowledgedAt: iso(r.ack_used_at) } : {}),
    createdAt: iso(r.created_at),
  };
}
