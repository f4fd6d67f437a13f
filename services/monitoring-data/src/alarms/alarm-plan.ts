import type { Queryable } from '@mp/db';
import { appendEvents, type HandedEvent, type NewEvent } from '@mp/events';
import { newId } from '@mp/kit';
import type { AlarmRow, Breach, Scope } from './alarm-store.js';
import { higher } from './settings.js';

type Action = 'opened' | 'escalated' | 'cleared';

interface HistoryEntry {
  alarmId: string;
  action: Action;
  level: string;
  status: string;
  dataId: string | null;
  reason: string | null;
}

/**
 * The alarm transitions of one write, decided in memory and written at the end in three
 * statements (alarms changed, alarms opened with every history entry, events), whatever their
 * number. The write holds its points' alarm locks and the rows of their active alarms (ADR 0074),
 * so the rows it read are the rows as they are, and no one else opens an alarm of its points
 * meanwhile: the transitions can be computed here instead of one statement each. That keeps the
 * part of a write that holds the locks to a few round trips (writes sharing points queue on it).
 *
 * Each method changes one row as alarm-store.ts's statements do (`open` as tryOpen, `breach` as
 * recordBreach, `clear` as clear), and returns the row as it now is.
 */
export class AlarmPlan {
  /** Final state of every alarm touched, in first-touched order; `isNew` when this write opened it. */
  private readonly rows = new Map<string, { row: AlarmRow; isNew: boolean }>();
  private readonly history: HistoryEntry[] = [];
  private readonly events: NewEvent<Record<string, unknown>>[] = [];

  constructor(
    private readonly scope: Scope,
    private readonly now: string,
  ) {}

  open(pointId: string, rule: AlarmRow['rule'], b: Breach): AlarmRow {
    const row: AlarmRow = {
      id: newId('alarm'),
      tenant_id: this.scope.tenantId,
      environment: this.scope.environment,
      project_id: this.scope.projectId,
      point_id: pointId,
      rule,
      level: b.level,
      status: 'open',
      reason: b.reason,
      threshold_warning: b.warning,
      threshold_alarm: b.alarm,
      value: b.value,
      first_data_id: b.first?.dataId ?? b.dataId,
      last_data_id: b.dataId,
      last_measured_at: b.measuredAt,
      reading_count: 1,
      normal_count: 0,
      opened_at: this.now,
      updated_at: this.now,
      acknowledged_at: null,
      acknowledged_by: null,
      acknowledge_comment: null,
      cleared_at: null,
      cleared_by: null,
      clear_comment: null,
      version: 1,
      channel: b.channel ?? null,
      first_measured_at: b.first?.measuredAt ?? b.measuredAt,
      opening_count: b.first?.count ?? 1,
    };
    this.rows.set(row.id, { row, isNew: true });
    this.note(row, 'opened', b.dataId, b.reason);
    return row;
  }

  /** A further breaking reading: the level rises (never falls); a rise re-opens an acknowledged alarm. */
  breach(current: AlarmRow, b: Breach, readings: number): { row: AlarmRow; escalated: boolean } {
    const level = higher(current.level, b.level);
    const escalated = level !== current.level;
    const row = this.set(current, {
      level,
      status: escalated ? 'open' : current.status,
      reason: b.reason,
      threshold_warning: b.warning,
      threshold_alarm: b.alarm,
      value: b.value,
      last_data_id: b.dataId ?? current.last_data_id,
      last_measured_at: b.measuredAt ?? current.last_measured_at,
      reading_count: current.reading_count + readings,
      normal_count: 0,
      updated_at: this.now,
      version: current.version + 1,
      // an escalation names the channel that crossed the higher level
      channel: escalated ? (b.channel ?? current.channel) : current.channel,
    });
    if (escalated) this.note(row, 'escalated', b.dataId, b.reason);
    return { row, escalated };
  }

  /**
   * A recomputation (ADR 0116) takes over an alarm its span had opened: the recomputed readings
   * cross a level again, so the alarm stays (no second alarm.opened) and says where the crossing
   * now starts — its first reading over the level, when, and how many of the run were over it.
   */
  adopt(current: AlarmRow, b: Breach, readings: number): { row: AlarmRow; escalated: boolean } {
    const updated = this.breach(current, b, readings);
    const row = this.set(updated.row, {
      first_data_id: b.first?.dataId ?? b.dataId,
      first_measured_at: b.first?.measuredAt ?? b.measuredAt,
      opening_count: b.first?.count ?? 1,
      reading_count: readings,
    });
    return { row, escalated: updated.escalated };
  }

  /** More readings of the run that opened the alarm (a recomputation's run going on past its batch). */
  extendOpening(current: AlarmRow, readings: number): AlarmRow {
    return this.set(current, { opening_count: current.opening_count + readings });
  }

  /** The count of readings back within the limits, set from the stored readings (a recomputation). */
  recount(current: AlarmRow, normalCount: number): AlarmRow {
    return normalCount === current.normal_count ? current : this.set(current, { normal_count: normalCount, updated_at: this.now });
  }

  /** Readings back under the limits: counted, and the alarm cleared when there are enough. */
  normal(current: AlarmRow, readings: number, clearAfter: number, lastDataId: string | null): { row: AlarmRow; cleared: boolean } {
    const count = current.normal_count + readings;
    if (count < clearAfter) return { row: this.set(current, { normal_count: count, updated_at: this.now }), cleared: false };
    const reason = `${count} reading${count === 1 ? '' : 's'} back within the limits (clears after ${clearAfter})`;
    return { row: this.clear(current, { dataId: lastDataId, reason, normalCount: count }), cleared: true };
  }

  /** Cleared by the readings (no actor, no comment). */
  clear(current: AlarmRow, extra: { dataId: string | null; reason: string; normalCount?: number }): AlarmRow {
    const row = this.set(current, {
      status: 'cleared',
      cleared_at: this.now,
      cleared_by: null,
      clear_comment: null,
      normal_count: extra.normalCount ?? current.normal_count,
      updated_at: this.now,
      version: current.version + 1,
    });
    this.note(row, 'cleared', extra.dataId, extra.reason);
    return row;
  }

  /** An event to append with the transitions, after the events raised before it. */
  raise(event: NewEvent<Record<string, unknown>>): void {
    this.events.push(event);
  }

  /** Writes every transition, its history and its events; returns the events for the relay. */
  async flush(tx: Queryable): Promise<HandedEvent[]> {
    const changed: AlarmRow[] = [];
    const opened: AlarmRow[] = [];
    for (const { row, isNew } of this.rows.values()) (isNew ? opened : changed).push(row);
    // Changes first, in their own statement: an alarm cleared here frees its (point, rule) in the
    // unique index of active alarms for one this write opens after it.
    if (changed.length) await updateAlarms(tx, changed);
    if (opened.length || this.history.length) await insertAlarms(tx, opened, this.history, this.now);
    const metas = await appendEvents(tx, this.events);
    return metas.map((m, i) => {
      const e = this.events[i]!;
      return { eventId: m.event_id, dataJson: 'dataJson' in e ? e.dataJson : JSON.stringify(e.data) };
    });
  }

  private set(current: AlarmRow, change: Partial<AlarmRow>): AlarmRow {
    const row = { ...current, ...change };
    const isNew = this.rows.get(current.id)?.isNew ?? false;
    this.rows.set(row.id, { row, isNew });
    return row;
  }

  private note(row: AlarmRow, action: Action, dataId: string | null, reason: string | null): void {
    this.history.push({ alarmId: row.id, action, level: row.level, status: row.status, dataId, reason });
  }
}

async function updateAlarms(tx: Queryable, rows: AlarmRow[]): Promise<void> {
  await tx.query(
    `UPDATE alarms a SET level = u.level, status = u.status, reason = u.reason, threshold_warning = u.threshold_warning,
            threshold_alarm = u.threshold_alarm, value = u.value, last_data_id = u.last_data_id, last_measured_at = u.last_measured_at,
            reading_count = u.reading_count, normal_count = u.normal_count, updated_at = u.updated_at, cleared_at = u.cleared_at,
            cleared_by = u.cleared_by, clear_comment = u.clear_comment, version = u.version, channel = u.channel,
            first_data_id = u.first_data_id, first_measured_at = u.first_measured_at, opening_count = u.opening_count
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::float8[], $8::text[], $9::timestamptz[],
                   $10::int[], $11::int[], $12::timestamptz[], $13::timestamptz[], $14::text[], $15::text[], $16::int[], $17::text[],
                   $18::text[], $19::timestamptz[], $20::int[])
         AS u(id, level, status, reason, threshold_warning, threshold_alarm, value, last_data_id, last_measured_at,
              reading_count, normal_count, updated_at, cleared_at, cleared_by, clear_comment, version, channel,
              first_data_id, first_measured_at, opening_count)
      WHERE a.id = u.id`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.level),
      rows.map((r) => r.status),
      rows.map((r) => r.reason),
      rows.map((r) => r.threshold_warning),
      rows.map((r) => r.threshold_alarm),
      rows.map((r) => r.value),
      rows.map((r) => r.last_data_id),
      rows.map((r) => r.last_measured_at),
      rows.map((r) => r.reading_count),
      rows.map((r) => r.normal_count),
      rows.map((r) => r.updated_at),
      rows.map((r) => r.cleared_at),
      rows.map((r) => r.cleared_by),
      rows.map((r) => r.clear_comment),
      rows.map((r) => r.version),
      rows.map((r) => r.channel),
      rows.map((r) => r.first_data_id),
      rows.map((r) => r.first_measured_at),
      rows.map((r) => r.opening_count),
    ],
    { prepare: 'md_alarms_update' },
  );
}

/** The alarms opened (as they end this write) and every history entry, in the order they happened. */
async function insertAlarms(tx: Queryable, rows: AlarmRow[], history: HistoryEntry[], at: string): Promise<void> {
  await tx.query(
    `WITH opened AS (
       INSERT INTO alarms (id, tenant_id, environment, project_id, point_id, rule, level, status, reason, threshold_warning, threshold_alarm, value,
                           first_data_id, last_data_id, last_measured_at, reading_count, normal_count, opened_at, updated_at, cleared_at, version,
                           channel, first_measured_at, opening_count)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::float8[],
                            $11::float8[], $12::float8[], $13::text[], $14::text[], $15::timestamptz[], $16::int[], $17::int[], $18::timestamptz[],
                            $19::timestamptz[], $20::timestamptz[], $21::int[], $22::text[], $23::timestamptz[], $24::int[]))
     INSERT INTO alarm_history (alarm_id, at, action, level, status, data_id, reason)
     SELECT h.alarm_id, $25::timestamptz, h.action, h.level, h.status, h.data_id, h.reason
       FROM unnest($26::text[], $27::text[], $28::text[], $29::text[], $30::text[], $31::text[]) WITH ORDINALITY AS h(alarm_id, action, level, status, data_id, reason, n)
      ORDER BY h.n`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.tenant_id),
      rows.map((r) => r.environment),
      rows.map((r) => r.project_id),
      rows.map((r) => r.point_id),
      rows.map((r) => r.rule),
      rows.map((r) => r.level),
      rows.map((r) => r.status),
      rows.map((r) => r.reason),
      rows.map((r) => r.threshold_warning),
      rows.map((r) => r.threshold_alarm),
      rows.map((r) => r.value),
      rows.map((r) => r.first_data_id),
      rows.map((r) => r.last_data_id),
      rows.map((r) => r.last_measured_at),
      rows.map((r) => r.reading_count),
      rows.map((r) => r.normal_count),
      rows.map((r) => r.opened_at),
      rows.map((r) => r.updated_at),
      rows.map((r) => r.cleared_at),
      rows.map((r) => r.version),
      rows.map((r) => r.channel),
      rows.map((r) => r.first_measured_at),
      rows.map((r) => r.opening_count),
      at,
      history.map((h) => h.alarmId),
      history.map((h) => h.action),
      history.map((h) => h.level),
      history.map((h) => h.status),
      history.map((h) => h.dataId),
      history.map((h) => h.reason),
    ],
    { prepare: 'md_alarms_insert' },
  );
}
