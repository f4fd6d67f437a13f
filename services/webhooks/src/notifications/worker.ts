import type { Queryable } from '@mp/db';
import { enqueueMails } from './enqueue.js';
import { MAIL_COLUMNS, type MailRow } from './mail-row.js';
import { MailRefused } from '@mp/mail';
import { ackUrl, htmlOf, pointUrl, textOf, type AlarmSnapshot } from './message.js';
import type { NotificationDeps } from './settings.js';

/** Rows claimed per transaction: short transactions; other replicas take the rest meanwhile. */
const CLAIM = 50;
/** Mails sent at once by one replica. */
const SENDING = 4;

interface DueRow {
  alarm_id: string;
  rule_id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  alarm: AlarmSnapshot;
  next_reminder_at: string | Date | null;
  reminders: number;
  escalate_at: string | Date | null;
  escalated_at: string | Date | null;
  recipients: string[];
  escalation_recipients: string[];
  reminder_interval_s: number | null;
}

/**
 * The notification worker of one replica: every MP_NOTIFY_POLL_MS (and at once when woken) it
 * turns due reminders and escalations into mails, then sends the mails that are due.
 *
 * Both steps claim rows with FOR UPDATE SKIP LOCKED, so with several replicas each row is taken by
 * one: a due reminder is moved on in the transaction that adds its mails; a mail is leased (for
 * `leaseMs`) before it is sent and its outcome recorded after. A replica that dies mid-send leaves
 * the lease to expire and the mail to another: a mail may then go twice, never zero times.
 * Time is the service's clock, so tests can move it.
 */
export class NotificationWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly deps: NotificationDeps,
    private readonly pollMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Runs a round now (or right after the one under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.runOnce();
        } catch (err) {
          this.deps.logger.warn({ err }, 'notification round failed; will retry');
        }
      } while (this.again && !this.stopped);
    })().finally(() => (this.running = null));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One round: due reminders and escalations into mails, then due mails sent. Returns mails sent or given up. */
  async runOnce(): Promise<number> {
    while ((await this.deps.db.transaction((tx) => this.scheduleDue(tx))) === CLAIM);
    let handled = 0;
    for (;;) {
      const mails = await this.claimMails();
      if (mails.length === 0) return handled;
      for (let i = 0; i < mails.length; i += SENDING) await Promise.all(mails.slice(i, i + SENDING).map((m) => this.send(m)));
      handled += mails.length;
      if (this.stopped) return handled;
    }
  }

  private async scheduleDue(tx: Queryable): Promise<number> {
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const { rows } = await tx.query<DueRow>(
      `SELECT na.alarm_id, na.rule_id, na.tenant_id, na.environment, na.project_id, na.alarm, na.next_reminder_at, na.reminders, na.escalate_at, na.escalated_at,
              r.recipients, r.escalation_recipients, r.reminder_interval_s
         FROM notified_alarms na JOIN notification_rules r ON r.id = na.rule_id AND r.deleted_at IS NULL
        WHERE na.status = 'open' AND LEAST(na.next_reminder_at, na.escalate_at) <= $1
        ORDER BY LEAST(na.next_reminder_at, na.escalate_at) LIMIT ${CLAIM}
        FOR UPDATE OF na SKIP LOCKED`,
      [nowIso],
    );
    for (const d of rows) {
      const rule = { id: d.rule_id, tenant_id: d.tenant_id, environment: d.environment, project_id: d.project_id };
      const escalateNow = d.escalate_at !== null && new Date(d.escalate_at) <= now;
      const escalated = d.escalated_at !== null || escalateNow;
      if (escalateNow) await enqueueMails(tx, this.deps, rule, d.alarm, 'escalation', 'escalation', d.escalation_recipients, now);
      let reminders = d.reminders;
      let nextReminder = d.next_reminder_at === null ? null : new Date(d.next_reminder_at);
      if (nextReminder !== null && nextReminder <= now) {
        reminders += 1;
        // Once escalated, the escalation list is reminded too.
        const to = escalated ? [...new Set([...d.recipients, ...d.escalation_recipients])] : d.recipients;
        await enqueueMails(tx, this.deps, rule, d.alarm, 'reminder', `reminder:${reminders}`, to, now);
        // Reminders missed while the platform was down are not sent one after the other: the next is one interval from now.
        nextReminder = d.reminder_interval_s === null ? null : new Date(now.getTime() + d.reminder_interval_s * 1000);
      }
      await tx.query(
        `UPDATE notified_alarms SET reminders = $3, next_reminder_at = $4, escalate_at = CASE WHEN $5 THEN NULL ELSE escalate_at END,
                                    escalated_at = CASE WHEN $5 THEN $6::timestamptz ELSE escalated_at END
          WHERE alarm_id = $1 AND rule_id = $2`,
        [d.alarm_id, d.rule_id, reminders, nextReminder?.toISOString() ?? null, escalateNow, nowIso],
      );
    }
    return rows.length;
  }

  /** Leases due mails to this replica (attempt counted now, so a crash mid-send still counts it). */
  private async claimMails(): Promise<MailRow[]> {
    const now = this.deps.clock.now();
    const { rows } = await this.deps.db.query<MailRow & { reminders: number | null }>(
      `WITH due AS (
         SELECT id FROM notification_mails
          WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
          ORDER BY next_attempt_at LIMIT ${CLAIM} FOR UPDATE SKIP LOCKED
       )
       UPDATE notification_mails m SET lease_until = $2, attempts = m.attempts + 1 FROM due WHERE m.id = due.id
       RETURNING ${MAIL_COLUMNS.split(', ')
         .map((c) => `m.${c}`)
         .join(', ')}`,
      [now.toISOString(), new Date(now.getTime() + this.deps.settings.leaseMs).toISOString()],
    );
    return rows;
  }

  private async send(m: MailRow): Promise<void> {
    const base = this.deps.publicUrls()[m.environment === 'sandbox' ? 'sandbox' : 'live'];
    const expires = new Date(m.ack_expires_at);
    const links = {
      point: pointUrl(base, m.alarm.point_id),
      ack: ackUrl(base, this.deps.links.sign(m.id, expires)),
      ackExpiresAt: `${expires.toISOString()} (UTC)`,
    };
    const reminder = m.kind === 'reminder' ? Number(m.step.split(':')[1]) : 0;
    try {
      const accepted = await this.deps.mailer.send({
        to: m.recipient,
        subject: m.subject,
        text: textOf(m.kind, m.alarm, links, reminder),
        html: htmlOf(m.kind, m.alarm, links, reminder),
        messageId: `<${m.id}@monitoring-platform>`,
      });
      await this.deps.db.query(
        `UPDATE notification_mails SET status = 'sent', sent_at = $2, smtp_response = $3, last_error = NULL, lease_until = NULL, next_attempt_at = NULL
          WHERE id = $1`,
        [m.id, this.deps.clock.now().toISOString(), accepted.response],
      );
    } catch (err) {
      const refused = err instanceof MailRefused ? err : new MailRefused((err as Error).message, false);
      const giveUp = refused.permanent || m.attempts >= this.deps.settings.maxAttempts;
      const retryAt = new Date(this.deps.clock.now().getTime() + this.deps.settings.retryBaseMs * 4 ** (m.attempts - 1));
      await this.deps.db.query(`UPDATE notification_mails SET status = $2, last_error = $3, lease_until = NULL, next_attempt_at = $4 WHERE id = $1`, [
        m.id,
        giveUp ? 'failed' : 'pending',
        refused.message,
        giveUp ? null : retryAt.toISOString(),
      ]);
      this.deps.logger.warn({ mail_id: m.id, attempts: m.attempts, gave_up: giveUp, err: refused.message }, 'notification mail not accepted');
    }
  }
}
