import type { Queryable } from '@mp/db';
import type { DomainEvent, EventPayload } from '@mp/events';
import { TurnBatch } from '../turn-batch.js';
import { enqueueMails } from './enqueue.js';
import type { AlarmSnapshot } from './message.js';
import { RULE_COLUMNS, type RuleRow } from './rule-row.js';
import type { NotificationDeps } from './settings.js';

const ALARM_TYPES = new Set(['alarm.opened', 'alarm.escalated', 'alarm.acknowledged', 'alarm.cleared']);

/**
 * Whether each alarm event can change anything: a rule of the project listening to the alarm's
 * level (opened, escalated), or an alarm a rule told people about (acknowledged, cleared: reminders
 * and escalation mails only exist for those). Asked first, in one read without a transaction, an
 * event with nothing to do writes and commits nothing: under writes whose readings cross
 * thresholds, most alarm events are such (no rule for their project or level), and each cost a
 * transaction with a synchronous commit (docs/adr/0127). What a later copy of the same event does
 * is unchanged: it finds nothing to do unless a rule came since, and then it is the first to mail.
 * One read answers for every event of `events` (the handlers running at once): a 1,000-record
 * write crossing thresholds brings some twenty alarm events, which each paid a round trip.
 */
async function anythingToDo(db: Queryable, events: DomainEvent[]): Promise<boolean[]> {
  const ruled = (e: DomainEvent) => e.event_type === 'alarm.opened' || e.event_type === 'alarm.escalated';
  const { rows } = await db.query<{ i: number }>(
    `SELECT e.i FROM unnest($1::int[], $2::bool[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                       AS e(i, ruled, tenant_id, environment, project_id, level, alarm_id)
      WHERE CASE WHEN e.ruled
                 THEN EXISTS (SELECT 1 FROM notification_rules r
                               WHERE r.tenant_id = e.tenant_id AND r.environment = e.environment AND r.project_id = e.project_id
                                 AND r.deleted_at IS NULL AND e.level = ANY (r.levels))
                 ELSE EXISTS (SELECT 1 FROM notified_alarms n WHERE n.alarm_id = e.alarm_id) END`,
    [
      events.map((_, i) => i),
      events.map(ruled),
      events.map((e) => e.tenant_id),
      events.map((e) => e.environment),
      events.map((e) => (ruled(e) ? (e.data as AlarmSnapshot).project_id : null)),
      events.map((e) => (ruled(e) ? (e.data as AlarmSnapshot).level : null)),
      events.map((e) => (ruled(e) ? null : (e.data as { alarm_id: string }).alarm_id)),
    ],
  );
  const yes = events.map(() => false);
  for (const r of rows) yes[r.i] = true;
  return yes;
}

/**
 * Gathers the alarm events whose handlers start in the same turn of the event loop (the consumer
 * runs several at once) and asks `anythingToDo` for all of them in one read. A failed read fails
 * every event of its batch (each is redelivered, as a failed handler's event is).
 */
export class AlarmEventGate {
  private readonly batches: TurnBatch<DomainEvent, boolean>;

  constructor(db: Queryable) {
    this.batches = new TurnBatch((events) => anythingToDo(db, events));
  }

  anythingToDo(event: DomainEvent): Promise<boolean> {
    return this.batches.add(event);
  }
}

const addSeconds = (d: Date, s: number | null) => (s === null ? null : new Date(d.getTime() + s * 1000).toISOString());

/**
 * Turns one alarm event into mails and schedules, in one transaction that first records the
 * event's id: a redelivered event (a crash before its ack, another replica's copy) finds the id and
 * does nothing, so each transition is mailed once.
 *
 * - alarm.opened / alarm.escalated: every rule of the project whose levels hold the alarm's level
 *   mails its recipients, and (re)starts the alarm's reminders and escalation clock for that rule.
 *   A rise to a level a rule listens to is that rule's first mail when it ignored the lower level.
 * - alarm.acknowledged / alarm.cleared: reminders and escalation of the alarm stop, and reminder or
 *   escalation mails not yet sent are skipped.
 *
 * Whether there is anything to do is asked through `gate` first, with the other events at hand.
 * Returns how many mails it added (the caller wakes the sender).
 */
export async function handleAlarmEvent(
  deps: Pick<NotificationDeps, 'db' | 'clock' | 'mailer' | 'settings'>,
  gate: AlarmEventGate,
  event: DomainEvent,
): Promise<number> {
  const type = event.event_type;
  if (!ALARM_TYPES.has(type)) return 0;
  if (!(await gate.anythingToDo(event))) return 0;
  return deps.db.transaction(async (tx) => {
    const fresh = await tx.query('INSERT INTO notification_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING', [event.event_id]);
    if (fresh.rowCount === 0) return 0;
    const now = deps.clock.now();
    if (type === 'alarm.acknowledged' || type === 'alarm.cleared') {
      const data = event.data as EventPayload<'alarm.acknowledged'>;
      await tx.query(
        `UPDATE notified_alarms SET status = $2, next_reminder_at = NULL, escalate_at = NULL WHERE alarm_id = $1 AND tenant_id = $3 AND environment = $4`,
        [data.alarm_id, data.status === 'cleared' ? 'cleared' : 'acknowledged', event.tenant_id, event.environment],
      );
      await tx.query(
        `UPDATE notification_mails SET status = 'skipped', last_error = $2, next_attempt_at = NULL
          WHERE alarm_id = $1 AND status = 'pending' AND kind IN ('reminder', 'escalation') AND lease_until IS NULL`,
        [data.alarm_id, `alarm ${data.status} before it was sent`],
      );
      return 0;
    }
    const alarm = event.data as AlarmSnapshot;
    const { rows: rules } = await tx.query<RuleRow>(
      `SELECT ${RULE_COLUMNS} FROM notification_rules
        WHERE tenant_id = $1 AND environment = $2 AND project_id = $3 AND deleted_at IS NULL AND $4 = ANY (levels)
        ORDER BY id`,
      [event.tenant_id, event.environment, alarm.project_id, alarm.level],
    );
    let added = 0;
    for (const rule of rules) {
      const step = type === 'alarm.opened' ? 'opened' : `escalated:${alarm.level}`;
      added += await enqueueMails(tx, deps, rule, alarm, type === 'alarm.opened' ? 'opened' : 'escalated', step, rule.recipients, now);
      // The reminder clock starts again at every transition; the escalation clock starts at the
      // rule's first mail about the alarm and is not moved by a rise in level.
      await tx.query(
        `INSERT INTO notified_alarms (alarm_id, rule_id, tenant_id, environment, project_id, alarm, status, next_reminder_at, escalate_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, 'open', $7, $8)
         ON CONFLICT (alarm_id, rule_id) DO UPDATE
           SET alarm = EXCLUDED.alarm, status = 'open', next_reminder_at = EXCLUDED.next_reminder_at,
               escalate_at = CASE WHEN notified_alarms.escalated_at IS NULL THEN coalesce(notified_alarms.escalate_at, EXCLUDED.escalate_at) END`,
        [
          alarm.alarm_id,
          rule.id,
          rule.tenant_id,
          rule.environment,
          rule.project_id,
          JSON.stringify(alarm),
          addSeconds(now, rule.reminder_interval_s),
          addSeconds(now, rule.escalation_after_s),
        ],
      );
    }
    return added;
  });
}
