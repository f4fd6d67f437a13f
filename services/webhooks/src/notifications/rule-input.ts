import { ALARM_LEVELS } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import type { webhooks } from '@mp/contracts';

/** Most recipients of a rule, and of its escalation list. */
export const MAX_RECIPIENTS = 20;
/** Rules a project may hold. */
export const MAX_RULES_PER_PROJECT = 50;
/** The longest reminder interval and escalation delay: a week. */
export const MAX_INTERVAL_SECONDS = 7 * 86_400;

// A plain address (local@domain), as people type them into a form; no display names, no comments.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export interface RuleInput {
  name: string;
  levels: string[];
  recipients: string[];
  reminderIntervalS: number | null;
  escalationAfterS: number | null;
  escalationRecipients: string[];
}

function recipientsOf(list: webhooks.NotificationRecipient[], field: string, required: boolean): string[] {
  if (required && list.length === 0) {
    throw new DomainError('422101', { field, detail: `${field} must list at least one recipient.`, suggestion: 'Send recipients: [{ "email": "…" }].' });
  }
  if (list.length > MAX_RECIPIENTS) {
    throw new DomainError('400003', {
      field,
      detail: `${field} lists at most ${MAX_RECIPIENTS} recipients.`,
      suggestion: 'Send the mails to a team address instead.',
    });
  }
  const seen = new Set<string>();
  list.forEach((r, i) => {
    const email = r.email.trim();
    if (email.length > 254 || !EMAIL.test(email)) {
      throw new DomainError('422103', {
        field: `${field}[${i}].email`,
        detail: `${excerpt(r.email)} is not an e-mail address.`,
        suggestion: 'Send a plain address such as duty.engineer@example.com.',
      });
    }
    seen.add(email.toLowerCase());
  });
  return [...seen];
}

function seconds(value: number | undefined, field: string, min: number): number | null {
  if (value === undefined) return null;
  if (!Number.isInteger(value) || value < min || value > MAX_INTERVAL_SECONDS) {
    throw new DomainError('400003', {
      field,
      detail: `${field} must be a whole number of seconds from ${min} to ${MAX_INTERVAL_SECONDS}.`,
      suggestion: `Send a value from ${min} (this platform's shortest, MP_NOTIFY_MIN_INTERVAL_SECONDS) to ${MAX_INTERVAL_SECONDS} (a week).`,
    });
  }
  return value;
}

/** The rule as POST /projects/{id}/notification-rules gives it, checked (400003, 422101, 422103). */
export function checkRuleInput(req: webhooks.CreateNotificationRuleRequest, minIntervalSeconds: number): RuleInput {
  const name = req.name.trim();
  if (name.length < 1 || name.length > 100) {
    throw new DomainError('400003', {
      field: 'name',
      detail: 'name must be 1 to 100 characters long.',
      suggestion: 'Send a rule name of 1 to 100 characters.',
    });
  }
  if (req.levels.length === 0) {
    throw new DomainError('422101', {
      field: 'levels',
      detail: 'levels must list at least one level.',
      suggestion: `Use some of: ${ALARM_LEVELS.join(', ')}.`,
    });
  }
  req.levels.forEach((l, i) => {
    if (!(ALARM_LEVELS as readonly string[]).includes(l)) {
      throw new DomainError('422103', {
        field: `levels[${i}]`,
        detail: `${excerpt(l)} is not an alarm level.`,
        suggestion: `Use some of: ${ALARM_LEVELS.join(', ')}.`,
      });
    }
  });
  const escalation = req.escalation;
  return {
    name,
    levels: ALARM_LEVELS.filter((l) => req.levels.includes(l)),
    recipients: recipientsOf(req.recipients, 'recipients', true),
    reminderIntervalS: seconds(req.reminderIntervalSeconds, 'reminder_interval_seconds', minIntervalSeconds),
    escalationAfterS: escalation ? seconds(escalation.afterSeconds, 'escalation.after_seconds', minIntervalSeconds) : null,
    escalationRecipients: escalation ? recipientsOf(escalation.recipients, 'escalation.recipients', true) : [],
  };
}
