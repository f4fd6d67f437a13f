import type { Queryable } from '@mp/db';
import { appendEvent, type EventPayload, type HandedEvent, type NewEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import { formatMeasuredAt } from '../measured-at.js';
import type { AlarmRow } from './alarm-store.js';
import type { AlarmLevel } from './settings.js';

/** Who an event is for and when it happened (the outbox row's envelope). */
export interface EventScope {
  tenantId: string;
  environment: 'live' | 'sandbox';
  occurredAt: string;
  traceparent?: string;
}

export const eventScopeOf = (caller: Pick<CallerContext, 'tenantId' | 'environment' | 'traceparent'>, occurredAt: string): EventScope => ({
  tenantId: caller.tenantId,
  environment: caller.environment as EventScope['environment'],
  occurredAt,
  ...(caller.traceparent ? { traceparent: caller.traceparent } : {}),
});

/** The record a rate or stale-data alarm carries in data.abnormal (dx/dy/dz only, docs/rules.md#event-payloads). */
export interface AbnormalRecord {
  dataId: string;
  pointId: string;
  pointName: string;
  sensorType: string;
  ms: number;
  offset: number;
  dx: number | null;
  dy: number | null;
  dz: number | null;
}

/**
 * data.abnormal (docs/rules.md#event-payloads) for an alarm of a rule other than the fixed thresholds (those are
 * raised by the write's own data.abnormal): the reading the alarm is about, `status` its level,
 * `threshold` the rule's limits (mm/day for rate; the point's thresholds for stale data) and a
 * `reason` naming the rule.
 */
export async function raiseAbnormal(
  tx: Queryable,
  scope: EventScope,
  project: { id: string; name: string },
  level: AlarmLevel,
  r: AbnormalRecord,
  threshold: { warning: number | null; alarm: number | null },
  reason: string,
): Promise<HandedEvent> {
  return append(tx, abnormalEvent(scope, project, level, r, threshold, reason));
}

/** data.abnormal of `raiseAbnormal`, to append later (with others, in one statement). */
export function abnormalEvent(
  scope: EventScope,
  project: { id: string; name: string },
  level: AlarmLevel,
  r: AbnormalRecord,
  threshold: { warning: number | null; alarm: number | null },
  reason: string,
): NewEvent<never> & { dataJson: string } {
  const values: Record<string, number> = {};
  if (r.dx !== null) values.dx = r.dx;
  if (r.dy !== null) values.dy = r.dy;
  if (r.dz !== null) values.dz = r.dz;
  const data: EventPayload<'data.abnormal'> = {
    project_id: project.id,
    project_name: project.name,
    alert_level: level,
    records: [
      {
        data_id: r.dataId,
        point_id: r.pointId,
        point_name: r.pointName,
        sensor_type: r.sensorType,
        measured_at: formatMeasuredAt(r.ms, r.offset),
        values,
        status: level,
        threshold: { warning: threshold.warning ?? 0, alarm: threshold.alarm ?? 0 },
        reason,
      },
    ],
  };
  return { ...scope, type: 'data.abnormal', dataJson: JSON.stringify(data) };
}

/**
 * alarm.acknowledged / alarm.cleared (our own event types, docs/rules.md#alarm-events, ADR 0024): the alarm as it now
 * is, who did it (null when the readings cleared it) and their comment.
 */
export async function raiseAlarmChange(
  tx: Queryable,
  scope: EventScope,
  type: 'alarm.acknowledged' | 'alarm.cleared',
  row: AlarmRow,
  by: { type: string; id: string } | null,
  comment: string | null,
): Promise<HandedEvent> {
  return append(tx, alarmChangeEvent(scope, type, row, by, comment));
}

/** The event of `raiseAlarmChange`, to append later (with others, in one statement). */
export function alarmChangeEvent(
  scope: EventScope,
  type: 'alarm.acknowledged' | 'alarm.cleared',
  row: AlarmRow,
  by: { type: string; id: string } | null,
  comment: string | null,
): NewEvent<never> & { dataJson: string } {
  const data: EventPayload<typeof type> = {
    alarm_id: row.id,
    project_id: row.project_id,
    point_id: row.point_id,
    rule: row.rule,
    level: row.level,
    channel: row.channel,
    status: row.status,
    reason: row.reason,
    by: by ? { principal_type: by.type, principal_id: by.id } : null,
    automatic: by === null,
    comment,
    at: scope.occurredAt,
  };
  return { ...scope, type, dataJson: JSON.stringify(data) };
}

async function append(tx: Queryable, event: NewEvent<never> & { dataJson: string }): Promise<HandedEvent> {
  const meta = await appendEvent(tx, event);
  return { eventId: meta.event_id, dataJson: event.dataJson };
}

/** What alarm.opened / alarm.escalated add to the alarm row: names people read, and the reading's time. */
export interface RaisedAbout {
  projectName: string;
  pointName: string;
  measuredAt: string | null;
}

/**
 * alarm.opened / alarm.escalated (ADR 0090): one event per transition of an alarm, never one per
 * reading, so that a notification sent for it is sent once; added in the transaction that moved it.
 */
export function alarmRaisedEvent(scope: EventScope, type: 'alarm.opened' | 'alarm.escalated', row: AlarmRow, about: RaisedAbout) {
  const data: EventPayload<typeof type> = {
    alarm_id: row.id,
    project_id: row.project_id,
    project_name: about.projectName,
    point_id: row.point_id,
    point_name: about.pointName,
    channel: row.channel ?? null,
    rule: row.rule,
    level: row.level,
    status: row.status,
    reason: row.reason,
    value: row.value,
    data_id: row.last_data_id,
    measured_at: about.measuredAt === null ? null : new Date(about.measuredAt).toISOString(),
    by: null,
    automatic: true,
    comment: null,
    at: scope.occurredAt,
  };
  return { ...scope, type, dataJson: JSON.stringify(data) };
}

export async function raiseAlarmRaised(
  tx: Queryable,
  scope: EventScope,
  type: 'alarm.opened' | 'alarm.escalated',
  row: AlarmRow,
  about: RaisedAbout,
): Promise<HandedEvent> {
  const event = alarmRaisedEvent(scope, type, row, about);
  const meta = await appendEvent(tx, event);
  return { eventId: meta.event_id, dataJson: event.dataJson };
}
