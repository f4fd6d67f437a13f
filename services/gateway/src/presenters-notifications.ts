import type { webhooks } from '@mp/contracts';

/** API shapes (snake_case JSON) of notification rules and their delivery log (ADR 0090). */
export const presentNotifications = {
  rule: (r: webhooks.NotificationRule) => ({
    id: r.id,
    project_id: r.projectId,
    name: r.name,
    levels: r.levels,
    recipients: r.recipients.map((x) => ({ email: x.email })),
    reminder_interval_seconds: r.reminderIntervalSeconds ?? null,
    escalation: r.escalation ? { after_seconds: r.escalation.afterSeconds, recipients: r.escalation.recipients.map((x) => ({ email: x.email })) } : null,
    created_at: r.createdAt,
    created_by: r.createdBy,
    mail_configured: r.mailConfigured,
  }),
  delivery: (m: webhooks.NotificationMail) => ({
    id: m.id,
    rule_id: m.ruleId,
    alarm_id: m.alarmId,
    kind: m.kind,
    recipient: m.recipient,
    subject: m.subject,
    status: m.status,
    attempts: m.attempts,
    last_error: m.lastError ?? null,
    smtp_response: m.smtpResponse ?? null,
    sent_at: m.sentAt ?? null,
    next_attempt_at: m.nextAttemptAt ?? null,
    acknowledged_at: m.acknowledgedAt ?? null,
    created_at: m.createdAt,
  }),
};
