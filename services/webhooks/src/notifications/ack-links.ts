import type { webhooks } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { MAIL_COLUMNS, type MailRow } from './mail-row.js';
import { pointUrl } from './message.js';
import type { NotificationDeps } from './settings.js';

const invalid = () =>
  new DomainError('404021', {
    field: 'token',
    detail: 'This acknowledge link is not valid: it was changed or cut, belongs to a deleted rule, or to the other environment.',
    suggestion: 'Open the link exactly as the mail gives it, or acknowledge the alarm in the console.',
  });

const used = (at: string | Date) =>
  new DomainError('409020', {
    field: 'token',
    detail: `This link was used at ${new Date(at).toISOString()}; each acknowledge link works once.`,
    suggestion: 'Open the alarm in the console to see who acknowledged it.',
  });

/**
 * The mail behind a link, for the environment the link was opened in (the gateway's port): the
 * signature first (a changed link is refused before anything is read), then the row — its rule
 * still there, the link not used (409020) and not expired (401020).
 */
async function mailOfLink(deps: NotificationDeps, q: Queryable, token: string, ctx: CallerContext): Promise<MailRow> {
  const link = deps.links.verify(token);
  if (!link) throw invalid();
  const { rows } = await q.query<MailRow>(
    `SELECT ${MAIL_COLUMNS.split(', ')
      .map((c) => `m.${c}`)
      .join(', ')} FROM notification_mails m JOIN notification_rules r ON r.id = m.rule_id AND r.deleted_at IS NULL
      WHERE m.id = $1`,
    [link.mailId],
  );
  const mail = rows[0];
  if (!mail || mail.environment !== ctx.environment) throw invalid();
  if (mail.ack_used_at !== null) throw used(mail.ack_used_at);
  if (new Date(mail.ack_expires_at) <= deps.clock.now()) {
    throw new DomainError('401020', {
      field: 'token',
      detail: `This link expired at ${new Date(mail.ack_expires_at).toISOString()}.`,
      suggestion: 'Acknowledge the alarm in the console, or with the link of a newer mail.',
    });
  }
  return mail;
}

function describe(deps: NotificationDeps, m: MailRow, acknowledgedAt?: string): webhooks.AckLink {
  const a = m.alarm;
  return {
    alarmId: m.alarm_id,
    projectName: a.project_name,
    pointName: a.point_name,
    level: a.level,
    reason: a.reason,
    recipient: m.recipient,
    expiresAt: new Date(m.ack_expires_at).toISOString(),
    ...(a.value !== null ? { value: a.value } : {}),
    ...(a.measured_at ? { measuredAt: a.measured_at } : {}),
    ...(a.channel ? { channel: a.channel } : {}),
    ...(acknowledgedAt ? { acknowledgedAt } : {}),
    pointUrl: pointUrl(deps.publicUrls()[m.environment === 'sandbox' ? 'sandbox' : 'live'], a.point_id),
  };
}

/** GET /alarm-ack/{token}: what the link would acknowledge (the confirmation page); changes nothing. */
export async function describeAckLink(deps: NotificationDeps, req: webhooks.AckLinkRequest, ctx: CallerContext): Promise<webhooks.AckLink> {
  return describe(deps, await mailOfLink(deps, deps.db, req.token, ctx));
}

/**
 * POST /alarm-ack/{token}: acknowledges the alarm as the mail's recipient, through the
 * monitoring-data service (which records `recipient` and the address, and refuses an alarm that is
 * no longer open with 409010), and uses up the link. The link is taken first, by a conditional
 * update that only one request can win (a second confirmation meanwhile gets 409020), and given
 * back if the acknowledgement fails; no transaction is held across the call (the embedded
 * database has one connection for every service). A crash between the two leaves the link used.
 */
export async function redeemAckLink(deps: NotificationDeps, req: webhooks.AckLinkRequest, ctx: CallerContext): Promise<webhooks.AckLink> {
  const mail = await mailOfLink(deps, deps.db, req.token, ctx);
  const takenAt = deps.clock.now().toISOString();
  const taken = await deps.db.query('UPDATE notification_mails SET ack_used_at = $2 WHERE id = $1 AND ack_used_at IS NULL', [mail.id, takenAt]);
  // Lost to a concurrent confirmation: answered as that link now is (used).
  if (taken.rowCount === 0) throw used(takenAt);
  const asTenant: CallerContext = {
    requestId: ctx.requestId,
    tenantId: mail.tenant_id,
    environment: mail.environment === 'sandbox' ? 'sandbox' : 'live',
    principalId: 'webhooks',
    principalType: 'system',
    permissions: [],
    ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
  };
  try {
    const alarm = await deps
      .sources()
      .data.acknowledgeAlarmAsRecipient({ id: mail.alarm_id, email: mail.recipient, ...(req.comment ? { comment: req.comment } : {}) }, asTenant);
    const at = alarm.acknowledgedAt ?? takenAt;
    // The log shows when the alarm was acknowledged, as the alarm itself does.
    await deps.db.query('UPDATE notification_mails SET ack_used_at = $3 WHERE id = $1 AND ack_used_at = $2', [mail.id, takenAt, at]);
    return describe(deps, mail, at);
  } catch (err) {
    await deps.db.query('UPDATE notification_mails SET ack_used_at = NULL WHERE id = $1 AND ack_used_at = $2', [mail.id, takenAt]);
    throw err;
  }
}
