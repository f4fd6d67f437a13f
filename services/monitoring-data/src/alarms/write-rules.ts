import type { Queryable } from '@mp/db';
import type { HandedEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import type { PointInfo, ProjectContext } from '../ingest-context.js';
import type { CheckedRecord } from '../record-rules.js';
import { abnormalEvent, alarmChangeEvent, alarmRaisedEvent, eventScopeOf, type EventScope } from './alarm-events.js';
import { AlarmPlan } from './alarm-plan.js';
import { lockActive, lockPoints, pointsWithActiveAlarms, type AlarmRow, type Breach, type Scope } from './alarm-store.js';
import { rateBreaches } from './rate-rule.js';
import { hasRateRule, rulesFor, type AlarmLevel, type AlarmSettings } from './settings.js';
import { STATUS_RANK } from '../channel-rules.js';
import { watchForStaleness } from './stale-watch.js';
import type { Reading } from './reading.js';

interface Run {
  breach: boolean;
  readings: Reading[];
}

/** Consecutive readings of a point that are all over its thresholds, or all within them. */
export function runsOf(readings: Reading[]): Run[] {
  const runs: Run[] = [];
  for (const r of readings) {
    const breach = r.record.status !== 'normal';
    const last = runs[runs.length - 1];
    if (last && last.breach === breach) last.readings.push(r);
    else runs.push({ breach, readings: [r] });
  }
  return runs;
}

export function thresholdBreach(run: Reading[], measuredAt: (r: Reading) => string): Breach {
  // The alarm shows the highest reading's level and the run's latest reading of that level.
  const level = run.reduce<AlarmLevel>((a, r) => (STATUS_RANK[r.record.status] > STATUS_RANK[a] ? (r.record.status as AlarmLevel) : a), 'warning');
  const top = [...run].reverse().find((r) => r.record.status === level)!;
  const rec = top.record;
  // The run says when the limit was first crossed: its first reading over the level, and how many were.
  const over = run.filter((r) => r.record.status === level);
  const first = { dataId: over[0]!.id, measuredAt: measuredAt(over[0]!), count: over.length };
  if (rec.channels !== null || (rec.channel !== null && !['dx', 'dy', 'dz'].includes(rec.channel))) {
    // a trigger level on a channel (docs/instruments.md)
    const channel = rec.channel!;
    const value = rec.channels?.[channel] ?? (rec[channel as 'x'] as number);
    const unit = rec.point.type?.channels.find((c) => c.name === channel)?.unit ?? '';
    return {
      level,
      reason: `trigger level: ${channel} ${value} ${unit} crossed the ${level} level`.replace(/ {2,}/g, ' '),
      warning: rec.point.triggerLevels.find((l) => l.level === 'warning' && l.channel === channel)?.above ?? null,
      alarm: rec.point.triggerLevels.find((l) => l.level === 'alarm' && l.channel === channel)?.above ?? null,
      value,
      dataId: top.id,
      measuredAt: measuredAt(top),
      channel,
      first,
    };
  }
  const comps = (['dx', 'dy', 'dz'] as const).filter((k) => rec[k] !== null);
  const k = comps.reduce((a, b) => (Math.abs(rec[b]!) > Math.abs(rec[a]!) ? b : a));
  const limit = level === 'alarm' ? rec.point.alarm : rec.point.warning;
  return {
    level,
    reason: `threshold: ${k} ${rec[k]} mm reached the ${level} threshold of ${limit} mm`,
    warning: rec.point.warning,
    alarm: rec.point.alarm,
    value: Math.abs(rec[k]!),
    dataId: top.id,
    measuredAt: measuredAt(top),
    channel: k,
    first,
  };
}

/**
 * The alarm rules of one write, in the write's transaction (called from storeWrite): opens,
 * updates, escalates and clears alarms for the points written to, and returns the events it
 * added (alarm.opened / alarm.escalated of every transition, data.abnormal of rate alarms,
 * alarm.cleared of alarms the readings cleared). The write's own data.abnormal carries the
 * records of a threshold alarm.
 */
export async function applyAlarmRules(
  tx: Queryable,
  settings: AlarmSettings,
  caller: CallerContext,
  ctx: ProjectContext,
  records: readonly CheckedRecord[],
  ids: readonly string[],
  now: Date,
): Promise<HandedEvent[]> {
  if (records.length === 0) return [];
  const nowIso = now.toISOString();
  const scope: Scope = { tenantId: caller.tenantId, environment: caller.environment, projectId: ctx.project.id };
  const events: EventScope = eventScopeOf(caller, nowIso);
  const byPoint = new Map<string, Reading[]>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    let list = byPoint.get(r.point.id);
    if (!list) byPoint.set(r.point.id, (list = []));
    list.push({ record: r, id: ids[i]! });
  }
  for (const list of byPoint.values()) list.sort((a, b) => a.record.ms - b.record.ms);
  // Each point's rules: its own alarm_rules over the operator defaults, resolved once per write.
  const resolved = new Map<PointInfo, AlarmSettings>();
  const rulesOf = (p: PointInfo) => resolved.get(p) ?? resolved.set(p, rulesFor(settings, p.alarmRules)).get(p)!;
  // Only the points with something to do take their lock (ADR 0074): a reading over a threshold,
  // a rule that judges every reading (rate, stale data), or an active alarm their readings count
  // towards clearing. The others — most points of most writes — are left alone, so writes sharing
  // points queue only where alarms move. A point whose alarm another write opens meanwhile is seen
  // by the next write: these readings were stored before that alarm existed.
  const quiet: string[] = [];
  for (const [pointId, list] of byPoint) {
    const r = rulesOf(list[0]!.record.point);
    if (!hasRateRule(r) && r.expectedIntervalSeconds === null && list.every((x) => x.record.status === 'normal')) quiet.push(pointId);
  }
  if (quiet.length) {
    const alarmed = new Set(await pointsWithActiveAlarms(tx, quiet));
    for (const pointId of quiet) if (!alarmed.has(pointId)) byPoint.delete(pointId);
  }
  if (byPoint.size === 0) return [];
  // The points' alarm locks first (in key order), then the stale-data watch rows, then the alarm
  // rows: the scheduled check takes no point lock and takes watch rows before alarm rows (skipping
  // watch rows a write holds), so no two of them wait on each other in a cycle.
  await lockPoints(tx, byPoint.keys());
  await watchForStaleness(tx, rulesOf, scope, ctx.project.name, byPoint);
  const active = new Map<string, AlarmRow>();
  for (const row of await lockActive(tx, [...byPoint.keys()])) active.set(`${row.point_id}|${row.rule}`, row);
  const rates = await rateBreaches(tx, (r) => rulesOf(r.record.point), byPoint);
  const iso = (r: Reading) => new Date(r.record.ms).toISOString();
  // Every transition is decided in memory and written at the end, in a few statements (AlarmPlan).
  const plan = new AlarmPlan(scope, nowIso);

  /** Breaches and returns to normal of one rule for one point, in reading order. */
  const apply = (
    pointId: string,
    rule: 'threshold' | 'rate',
    steps: { breach: Breach | null; readings: Reading[] }[],
    onRaise?: (row: AlarmRow, b: Breach) => void,
  ) => {
    let row = active.get(`${pointId}|${rule}`) ?? null;
    // Every opening and every rise of the level is announced once (alarm.opened / alarm.escalated).
    const raised = (type: 'alarm.opened' | 'alarm.escalated', r: AlarmRow, b: Breach) => {
      const pointName = byPoint.get(pointId)![0]!.record.point.name;
      plan.raise(alarmRaisedEvent(events, type, r, { projectName: ctx.project.name, pointName, measuredAt: b.measuredAt }));
      onRaise?.(r, b);
    };
    for (const step of steps) {
      if (step.breach) {
        if (row) {
          const updated = plan.breach(row, step.breach, step.readings.length);
          row = updated.row;
          if (updated.escalated) raised('alarm.escalated', row, step.breach);
        } else {
          row = plan.open(pointId, rule, step.breach);
          raised('alarm.opened', row, step.breach);
        }
      } else if (row) {
        const last = step.readings[step.readings.length - 1]!;
        const counted = plan.normal(row, step.readings.length, rulesOf(last.record.point).clearAfterReadings, last.id);
        if (counted.cleared) {
          plan.raise(alarmChangeEvent(events, 'alarm.cleared', counted.row, null, null));
          row = null;
        } else row = counted.row;
      }
    }
  };

  for (const [pointId, readings] of byPoint) {
    apply(
      pointId,
      'threshold',
      runsOf(readings).map((run) => ({ breach: run.breach ? thresholdBreach(run.readings, iso) : null, readings: run.readings })),
    );
    // A reading of a point with a stale-data alarm ends it: data arrives again.
    const stale = active.get(`${pointId}|stale`);
    if (stale) {
      const last = readings[readings.length - 1]!;
      const cleared = plan.clear(stale, { dataId: last.id, reason: `a reading arrived (measured ${iso(last)})` });
      plan.raise(alarmChangeEvent(events, 'alarm.cleared', cleared, null, null));
    }
  }

  for (const { reading, breach } of rates) {
    const pointId = reading.record.point.id;
    apply(pointId, 'rate', [{ breach, readings: [reading] }], (row, b) => {
      const r = reading.record;
      plan.raise(
        abnormalEvent(
          events,
          ctx.project,
          row.level,
          { dataId: reading.id, pointId, pointName: r.point.name, sensorType: r.point.sensorType, ms: r.ms, offset: r.offset, dx: r.dx, dy: r.dy, dz: r.dz },
          { warning: b.warning, alarm: b.alarm },
          b.reason,
        ),
      );
    });
  }
  return plan.flush(tx);
}
