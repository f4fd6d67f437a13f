import type { projects } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import { POINT_COLUMNS, type PointRow } from './point-columns.js';

/** A point's alarm rules as stored (the contract's own field names, so they map 1:1). */
export type StoredAlarmRules = projects.AlarmRules;

const LIMITS: Record<keyof projects.AlarmRules, { int: boolean; max: number }> = {
  clearAfterReadings: { int: true, max: 1000 },
  rateWarningMmPerDay: { int: false, max: 1e6 },
  rateAlarmMmPerDay: { int: false, max: 1e6 },
  rateWindowHours: { int: false, max: 8760 },
  expectedIntervalSeconds: { int: true, max: 31_536_000 },
  staleFactor: { int: true, max: 1000 },
};
const snake = (k: string) => `alarm_rules.${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;

/**
 * `alarm_rules` of a point (docs/adr/0024-alarms.md): every field optional and positive (400003
 * naming it otherwise), counts whole; the rate alarm limit not under the warning one (422204).
 */
export function checkAlarmRules(rules: projects.AlarmRules): StoredAlarmRules {
  const out: StoredAlarmRules = {};
  for (const [k, limit] of Object.entries(LIMITS) as [keyof projects.AlarmRules, { int: boolean; max: number }][]) {
    const v = rules[k];
    if (v === undefined) continue;
    if (!Number.isFinite(v) || v <= 0 || v > limit.max || (limit.int && !Number.isInteger(v))) {
      throw new DomainError('400003', {
        field: snake(k),
        detail: `${snake(k)} must be ${limit.int ? 'a whole number' : 'a number'} greater than 0 and at most ${limit.max}; got ${v}.`,
        suggestion: `Send ${snake(k)} within the range, or leave it out for the platform default.`,
      });
    }
    out[k] = v;
  }
  if (out.rateWarningMmPerDay !== undefined && out.rateAlarmMmPerDay !== undefined && out.rateAlarmMmPerDay < out.rateWarningMmPerDay) {
    throw new DomainError('422204', {
      field: 'alarm_rules.rate_alarm_mm_per_day',
      detail: 'The rate alarm limit is below the rate warning limit.',
      suggestion: 'Send a rate_alarm_mm_per_day at least rate_warning_mm_per_day.',
    });
  }
  return out;
}

/** Stores a point's alarm rules (null: the platform defaults) in the caller's transaction. */
export async function storeAlarmRules(tx: Queryable, pointId: string, rules: StoredAlarmRules | null): Promise<PointRow> {
  const { rows } = await tx.query<PointRow>(`UPDATE points SET alarm_rules = $2 WHERE id = $1 RETURNING ${POINT_COLUMNS}`, [
    pointId,
    rules === null ? null : JSON.stringify(rules),
  ]);
  return rows[0]!;
}

/** The stored rules as the contract carries them (jsonb arrives parsed, or as text on some drivers). */
export function alarmRulesOf(row: Pick<PointRow, 'alarm_rules'>): { alarmRules?: projects.AlarmRules } {
  if (row.alarm_rules === null || row.alarm_rules === undefined) return {};
  return { alarmRules: typeof row.alarm_rules === 'string' ? (JSON.parse(row.alarm_rules) as projects.AlarmRules) : row.alarm_rules };
}
