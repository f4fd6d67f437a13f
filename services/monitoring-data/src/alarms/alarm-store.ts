import type { Queryable } from '@mp/db';
import { newId } from '@mp/kit';
import { higher, type AlarmLevel, type AlarmRule, type AlarmStatus } from './settings.js';

/** An alarm row as stored (timestamps as the driver gives them). */
export interface AlarmRow {
  id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  point_id: string;
  rule: AlarmRule;
  level: AlarmLevel;
  status: AlarmStatus;
  reason: string;
  threshold_warning: number | null;
  threshold_alarm: number | null;
  value: number | null;
  first_data_id: string | null;
  last_data_id: string | null;
  last_measured_at: string | null;
  reading_count: number;
  normal_count: number;
  opened_at: string;
  updated_at: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  acknowledge_comment: string | null;
  cleared_at: string | null;
  cleared_by: string | null;
  clear_comment: string | null;
  version: number;
  /** the channel whose level was crossed (dx, dy or dz for a displacement threshold) */
  channel: string | null;
  /** the first reading over the level of the run that opened the alarm, and how many of that run were over it */
  first_measured_at: string | null;
  opening_count: number;
}

export const ALARM_COLUMNS =
  'id, tenant_id, environment, project_id, point_id, rule, level, status, reason, threshold_warning, threshold_alarm, value, first_data_id, last_data_id, last_measured_at, reading_count, normal_count, opened_at, updated_at, acknowledged_at, acknowledged_by, acknowledge_comment, cleared_at, cleared_by, clear_comment, version, channel, first_measured_at, opening_count';

export interface Scope {
  tenantId: string;
  environment: string;
  projectId: string;
}

/** A reading that breaks a rule: what the alarm shows about it. */
export interface Breach {
  level: AlarmLevel;
  reason: string;
  warning: number | null;
  alarm: number | null;
  value: number;
  dataId: string | null;
  measuredAt: string | null;
  /** the channel crossed (threshold and trigger-level alarms) */
  channel?: string | null;
  /**
   * The run of readings over the level that this breach stands for (a back-filled write holds
   * many): its first reading's id and time, and how many readings it holds.
   */
  first?: { dataId: string; measuredAt: string; count: number };
}

/**
 * Key space of the per-point alarm lock. Advisory locks with two 32-bit keys never collide with
 * the one-key locks used elsewhere (migrations, rollup folding).
 */
const POINT_LOCK_SPACE = 0x4d50;

/**
 * Takes the alarm lock of each point, until the transaction ends: the alarm rules of one point are
 * applied by one write at a time, across every replica. Without it two writes could both find no
 * active alarm and both open one (one then waits on the unique index and finds the other's alarm
 * cleared by a third write), or lock alarm rows of several points in opposite orders (deadlock).
 * The locks are taken in key order, the same in every transaction, so writes sharing points queue
 * instead of deadlocking; two points whose keys collide only share a queue.
 */
export async function lockPoints(tx: Queryable, pointIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(pointIds)];
  if (ids.length === 0) return;
  // A volatile function in the select list runs after the sort, in key order.
  await tx.query(
    `SELECT pg_advisory_xact_lock(${POINT_LOCK_SPACE}, k) FROM (SELECT DISTINCT hashtext(p) AS k FROM unnest($1::text[]) AS p) s ORDER BY k`,
    [ids],
    { prepare: 'md_lock_points' },
  );
}

/** Which of these points have an active alarm now (committed; nothing locked). */
export async function pointsWithActiveAlarms(tx: Queryable, pointIds: string[]): Promise<string[]> {
  if (pointIds.length === 0) return [];
  const { rows } = await tx.query<{ point_id: string }>(
    `SELECT DISTINCT point_id FROM alarms WHERE point_id = ANY($1::text[]) AND status <> 'cleared'`,
    [pointIds],
    { prepare: 'md_alarmed_points' },
  );
  return rows.map((r) => r.point_id);
}

/** The active (not cleared) alarms of these points, locked until the transaction ends. */
export async function lockActive(tx: Queryable, pointIds: string[]): Promise<AlarmRow[]> {
  if (pointIds.length === 0) return [];
  const { rows } = await tx.query<AlarmRow>(
    `SELECT ${ALARM_COLUMNS} FROM alarms WHERE point_id = ANY($1::text[]) AND status <> 'cleared' ORDER BY point_id, rule FOR UPDATE`,
    [pointIds],
  );
  return rows;
}

/**
 * Opens an alarm, or — when another transaction opened one for the point and rule first (the
 * partial unique index waits for it and skips the insert) — returns that one, locked, so the
 * caller updates it instead: concurrent replicas never hold two active alarms of a point and rule.
 * The alarm found can be cleared by yet another transaction between the skipped insert and the
 * look-up (the look-up then finds none): the insert is tried again, a bounded number of times.
 */
export async function openOrFind(
  tx: Queryable,
  scope: Scope,
  pointId: string,
  rule: AlarmRule,
  b: Breach,
  now: string,
): Promise<{ row: AlarmRow; opened: boolean }> {
  for (let attempt = 1; ; attempt++) {
    const opened = await tryOpen(tx, scope, pointId, rule, b, now);
    if (opened) return { row: opened, opened: true };
    const found = await tx.query<AlarmRow>(`SELECT ${ALARM_COLUMNS} FROM alarms WHERE point_id = $1 AND rule = $2 AND status <> 'cleared' FOR UPDATE`, [
      pointId,
      rule,
    ]);
    if (found.rows[0]) return { row: found.rows[0], opened: false };
    if (attempt >= 5) throw new Error(`alarm of point ${pointId}, rule ${rule}: opened and cleared by others ${attempt} times in a row`);
  }
}

async function tryOpen(tx: Queryable, scope: Scope, pointId: string, rule: AlarmRule, b: Breach, now: string): Promise<AlarmRow | null> {
  const row = await withHistory(
    tx,
    `INSERT INTO alarms (id, tenant_id, environment, project_id, point_id, rule, level, status, reason, threshold_warning, threshold_alarm, value,
                         first_data_id, last_data_id, last_measured_at, opened_at, updated_at, channel, first_measured_at, opening_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', $8, $9, $10, $11, coalesce($16, $12), $12, $13, $14, $14, $15, coalesce($17::timestamptz, $13::timestamptz), $18)
     ON CONFLICT (point_id, rule) WHERE status <> 'cleared' DO NOTHING`,
    [
      newId('alarm'),
      scope.tenantId,
      scope.environment,
      scope.projectId,
      pointId,
      rule,
      b.level,
      b.reason,
      b.warning,
      b.alarm,
      b.value,
      b.dataId,
      b.measuredAt,
      now,
      b.channel ?? null,
      b.first?.dataId ?? null,
      b.first?.measuredAt ?? null,
      b.first?.count ?? 1,
    ],
    'opened',
    now,
    { dataId: b.dataId, reason: b.reason },
  );
  return row ?? null;
}

/**
 * A further breaking reading of an active alarm: the level rises (never falls), the latest
 * reading and reason are kept, and the count of readings back to normal starts again. A rise to
 * `alarm` re-opens an acknowledged alarm: it needs someone's attention again.
 */
export async function recordBreach(tx: Queryable, row: AlarmRow, b: Breach, readings: number, now: string): Promise<{ row: AlarmRow; escalated: boolean }> {
  const level = higher(row.level, b.level);
  const escalated = level !== row.level;
  const update = `UPDATE alarms SET level = $2, status = $3, reason = $4, threshold_warning = $5, threshold_alarm = $6, value = $7,
                       last_data_id = coalesce($8, last_data_id), last_measured_at = coalesce($9, last_measured_at),
                       reading_count = reading_count + $10, normal_count = 0, updated_at = $11, version = version + 1,
                       channel = CASE WHEN $13 THEN coalesce($12, channel) ELSE channel END
      WHERE id = $1`;
  const params = [
    row.id,
    level,
    escalated ? 'open' : row.status,
    b.reason,
    b.warning,
    b.alarm,
    b.value,
    b.dataId,
    b.measuredAt,
    readings,
    now,
    b.channel ?? null,
    escalated,
  ];
  const updated = escalated
    ? await withHistory(tx, update, params, 'escalated', now, { dataId: b.dataId, reason: b.reason })
    : (await tx.query<AlarmRow>(`${update} RETURNING ${ALARM_COLUMNS}`, params)).rows[0];
  return { row: updated!, escalated };
}

/** Clears an alarm: by a person (actor set, with their comment) or by the readings (actor null). */
export async function clear(
  tx: Queryable,
  row: AlarmRow,
  actor: { type: string | null; id: string | null },
  comment: string | null,
  now: string,
  extra: { dataId?: string | null; reason?: string; normalCount?: number } = {},
): Promise<AlarmRow> {
  const cleared = await withHistory(
    tx,
    `UPDATE alarms SET status = 'cleared', cleared_at = $2, cleared_by = $3, clear_comment = $4, normal_count = coalesce($5, normal_count),
                       updated_at = $2, version = version + 1
      WHERE id = $1`,
    [row.id, now, actor.id, comment, extra.normalCount ?? null],
    'cleared',
    now,
    { actor, comment, dataId: extra.dataId ?? null, reason: extra.reason ?? null },
  );
  return cleared!;
}

export async function acknowledge(tx: Queryable, row: AlarmRow, actor: { type: string; id: string }, comment: string | null, now: string): Promise<AlarmRow> {
  const { rows } = await tx.query<AlarmRow>(
    `UPDATE alarms SET status = 'acknowledged', acknowledged_at = $2, acknowledged_by = $3, acknowledge_comment = $4, updated_at = $2, version = version + 1
      WHERE id = $1 RETURNING ${ALARM_COLUMNS}`,
    [row.id, now, actor.id, comment],
  );
  await addHistory(tx, rows[0]!, 'acknowledged', now, { actor, comment });
  return rows[0]!;
}

type HistoryAction = 'opened' | 'escalated' | 'acknowledged' | 'cleared';
interface HistoryNote {
  actor?: { type: string | null; id: string | null };
  comment?: string | null;
  dataId?: string | null;
  reason?: string | null;
}

/**
 * Runs `dml` (an INSERT or UPDATE of one alarm, without RETURNING) and adds the history entry of
 * what it did in the same statement: one round trip per alarm transition instead of two, which
 * the writes of a busy site make many of. Returns the alarm as it now is (none when the DML
 * touched no row; then no history entry is added either).
 */
async function withHistory(tx: Queryable, dml: string, params: unknown[], action: HistoryAction, at: string, o: HistoryNote): Promise<AlarmRow | undefined> {
  const n = params.length;
  const p = (i: number) => `$${n + i}`;
  const { rows } = await tx.query<AlarmRow>(
    `WITH a AS (${dml} RETURNING ${ALARM_COLUMNS}),
          h AS (INSERT INTO alarm_history (alarm_id, at, action, level, status, actor_type, actor_id, comment, data_id, reason)
                SELECT id, ${p(1)}::timestamptz, ${p(2)}::text, level, status, ${p(3)}::text, ${p(4)}::text, ${p(5)}::text, ${p(6)}::text, ${p(7)}::text FROM a)
     SELECT * FROM a`,
    [...params, at, action, o.actor?.type ?? null, o.actor?.id ?? null, o.comment ?? null, o.dataId ?? null, o.reason ?? null],
  );
  return rows[0];
}

async function addHistory(tx: Queryable, row: AlarmRow, action: HistoryAction, at: string, o: HistoryNote): Promise<void> {
  await tx.query(
    `INSERT INTO alarm_history (alarm_id, at, action, level, status, actor_type, actor_id, comment, data_id, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [row.id, at, action, row.level, row.status, o.actor?.type ?? null, o.actor?.id ?? null, o.comment ?? null, o.dataId ?? null, o.reason ?? null],
  );
}
