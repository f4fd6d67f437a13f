import type { Queryable } from '@mp/db';
import type { HandedEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import type { PointInfo, ProjectInfo } from '../ingest-context.js';
import { alarmChangeEvent, alarmRaisedEvent, eventScopeOf } from './alarm-events.js';
import { AlarmPlan } from './alarm-plan.js';
import { lockActive, type AlarmRow } from './alarm-store.js';
import type { Reading } from './reading.js';
import { rulesFor, type AlarmSettings } from './settings.js';
import { runsOf, thresholdBreach } from './write-rules.js';

/** Where a recomputation stands in its span, as the alarm replay needs it (recompute.ts). */
export interface ReplayStep {
  /** the span's start (a calibration's valid_from; 1970 for a recomputation of every reading) */
  from: Date;
  /** this is the job's first batch: the alarm's state is set back to the span's start */
  first: boolean;
  /** this is the job's last batch: the alarm's state is settled against the stored readings */
  last: boolean;
  /** an alarm the span had opened that the recomputed readings have not crossed a level again for (yet) */
  pending: string | null;
  /** the alarm this job opened (or took over) whose opening run of readings reached the batch's end */
  opening: string | null;
  /** when the job was handed over: readings stored since were written with the new settings */
  handedAt: Date;
}

/**
 * The threshold (trigger-level) alarm of one point after a batch of its readings was recomputed
 * (ADR 0116, "Alarms"), in the batch's transaction, which holds the point's alarm lock (ADR 0074):
 * the recomputed readings go through the rules of a back-filled write, in reading order, so the
 * alarm ends as if they had been written with the new values, with one event per transition.
 *
 * - First batch: an active alarm opened before the span keeps going, its count of readings back
 *   within the limits set to the stored readings just before the span (the span's old values no
 *   longer count). One the span itself opened is *pending*: a recomputed run over a level takes it
 *   over (first crossing, count and level from the new values; alarm.escalated if the level
 *   rises), and the readings before that do not count towards clearing it.
 * - Every batch: a run over a level opens an alarm (alarm.opened) or updates / escalates the
 *   active one; a run within the limits counts towards clearing it (alarm.cleared after the
 *   point's clear_after_readings), exactly as applyAlarmRules does.
 * - Last batch: a pending alarm that neither the recomputed readings nor a reading written since
 *   the hand-over crossed a level for is cleared; the active alarm's count of readings back
 *   within the limits is set from the newest stored readings (writes that came in meanwhile
 *   counted themselves), clearing it when there are enough.
 *
 * Rate-of-change and stale-data alarms are left alone: a recomputation changes instrument
 * channels, never displacements (which the rate rule reads) nor when readings arrived.
 * A run over the level that goes on past a batch's end is one run: the next batch adds its readings
 * to the alarm's opening count, as one back-filled write of the whole span would have counted them.
 * Returns the events added, and the pending and opening alarms after this batch.
 */
export async function replayAlarms(
  tx: Queryable,
  settings: AlarmSettings,
  caller: CallerContext,
  project: ProjectInfo,
  point: PointInfo,
  readings: Reading[],
  step: ReplayStep,
  now: Date,
): Promise<{ events: HandedEvent[]; pending: string | null; opening: string | null }> {
  const nowIso = now.toISOString();
  const rules = rulesFor(settings, point.alarmRules);
  const plan = new AlarmPlan({ tenantId: caller.tenantId, environment: caller.environment, projectId: project.id }, nowIso);
  const events = eventScopeOf(caller, nowIso);
  let row: AlarmRow | null = (await lockActive(tx, [point.id])).find((r) => r.rule === 'threshold') ?? null;
  let pending = row && step.pending === row.id ? row.id : null;
  if (step.first && row) {
    if (row.first_measured_at !== null && new Date(row.first_measured_at).getTime() >= step.from.getTime()) pending = row.id;
    else row = plan.recount(row, await trailingNormals(tx, point.id, step.from, rules.clearAfterReadings));
  }
  const iso = (r: Reading) => new Date(r.record.ms).toISOString();
  let opening: string | null = null;
  for (const [k, run] of runsOf(readings).entries()) {
    opening = null;
    if (run.breach) {
      const b = thresholdBreach(run.readings, iso);
      if (row) {
        const adopting = row.id === pending;
        // the opening run of the previous batch going on at the same level
        const continuing = k === 0 && row.id === step.opening && b.level === row.level;
        const updated = adopting ? plan.adopt(row, b, run.readings.length) : plan.breach(row, b, run.readings.length);
        pending = null;
        row = updated.row;
        if (continuing) row = plan.extendOpening(row, b.first?.count ?? 1);
        if (adopting || continuing) opening = row.id;
        if (updated.escalated)
          plan.raise(alarmRaisedEvent(events, 'alarm.escalated', row, { projectName: project.name, pointName: point.name, measuredAt: b.measuredAt }));
      } else {
        row = plan.open(point.id, 'threshold', b);
        opening = row.id;
        plan.raise(alarmRaisedEvent(events, 'alarm.opened', row, { projectName: project.name, pointName: point.name, measuredAt: b.measuredAt }));
      }
    } else if (row && row.id !== pending) {
      const last = run.readings[run.readings.length - 1]!;
      const counted = plan.normal(row, run.readings.length, rules.clearAfterReadings, last.id);
      row = counted.row;
      if (counted.cleared) {
        plan.raise(alarmChangeEvent(events, 'alarm.cleared', row, null, null));
        row = null;
      }
    }
  }
  // A pending alarm that a reading written since the hand-over crossed a level for (its latest
  // breaking reading) is justified by that reading: it stays, and is settled as any other.
  if (step.last && row && row.id === pending && (await brokenSince(tx, row, step.handedAt))) pending = null;
  if (step.last && row) {
    if (row.id === pending) {
      row = plan.clear(row, { dataId: null, reason: 'the recomputed readings no longer cross a level' });
      plan.raise(alarmChangeEvent(events, 'alarm.cleared', row, null, null));
      pending = null;
    } else {
      const normal = await trailingNormals(tx, point.id, null, rules.clearAfterReadings);
      if (normal >= rules.clearAfterReadings) {
        const reason = `${normal} readings back within the limits after recomputation (clears after ${rules.clearAfterReadings})`;
        row = plan.clear(row, { dataId: null, reason, normalCount: normal });
        plan.raise(alarmChangeEvent(events, 'alarm.cleared', row, null, null));
      } else plan.recount(row, normal);
    }
  }
  return { events: await plan.flush(tx), pending, opening: row?.id === opening ? opening : null };
}

/** Whether the alarm's latest breaking reading was stored at or after `since` and is over a level. */
async function brokenSince(tx: Queryable, row: AlarmRow, since: Date): Promise<boolean> {
  if (row.last_data_id === null || row.last_measured_at === null) return false;
  const { rows } = await tx.query(`SELECT 1 FROM data_records WHERE id = $1 AND measured_at = $2 AND created_at >= $3 AND status <> 'normal'`, [
    row.last_data_id,
    new Date(row.last_measured_at).toISOString(),
    since.toISOString(),
  ]);
  return rows.length > 0;
}

/**
 * How many of the point's newest readings (before `before`, or of all) are within the limits,
 * counted up to `cap` (the readings that clear an alarm): the count an alarm would hold there.
 * Readings marked invalid are out of series and do not count.
 */
async function trailingNormals(tx: Queryable, pointId: string, before: Date | null, cap: number): Promise<number> {
  const { rows } = await tx.query<{ status: string }>(
    `SELECT status FROM data_records WHERE point_id = $1 AND ($2::timestamptz IS NULL OR measured_at < $2) AND quality_flag <> 'invalid'
      ORDER BY measured_at DESC LIMIT $3`,
    [pointId, before?.toISOString() ?? null, cap],
  );
  let n = 0;
  while (n < rows.length && rows[n]!.status === 'normal') n++;
  return n;
}
