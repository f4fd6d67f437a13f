import type { Queryable } from '@mp/db';
import type { Breach } from './alarm-store.js';
import { hasRateRule, levelOf, type AlarmSettings } from './settings.js';
import type { Reading } from './reading.js';

const DAY_MS = 86_400_000;

/** A number as the reason shows it: at most two decimals, no trailing zeros. */
const short = (v: number) => String(Number(v.toFixed(2)));

/**
 * The rate-of-change rule for the latest reading of each point of a write: the largest change of
 * dx, dy or dz since the point's latest valid reading at least the window earlier, in mm per day.
 * A point without a reading that old is not judged yet. `breach` is null when the rate is within
 * the limits (a reading back to normal for an active rate alarm).
 */
export async function rateBreaches(
  tx: Queryable,
  rulesOf: (r: Reading) => AlarmSettings,
  byPoint: Map<string, Reading[]>,
): Promise<{ reading: Reading; breach: Breach | null }[]> {
  const latest = [...byPoint.values()].map((list) => list[list.length - 1]!).filter((r) => hasRateRule(rulesOf(r)));
  if (latest.length === 0) return [];
  const { rows } = await tx.query<{ point_id: string; measured_at: string; dx: number | null; dy: number | null; dz: number | null }>(
    `SELECT u.point_id, d.measured_at, d.dx, d.dy, d.dz
       FROM unnest($1::text[], $2::timestamptz[]) AS u(point_id, upto)
       CROSS JOIN LATERAL (SELECT measured_at, dx, dy, dz FROM data_records
                            WHERE point_id = u.point_id AND measured_at <= u.upto AND quality_flag <> 'invalid'
                            ORDER BY measured_at DESC LIMIT 1) d`,
    [latest.map((r) => r.record.point.id), latest.map((r) => new Date(r.record.ms - rulesOf(r).rateWindowHours * 3_600_000).toISOString())],
  );
  const reference = new Map(rows.map((r) => [r.point_id, r]));
  const out: { reading: Reading; breach: Breach | null }[] = [];
  for (const reading of latest) {
    const rec = reading.record;
    const settings = rulesOf(reading);
    const ref = reference.get(rec.point.id);
    if (!ref) continue;
    const days = (rec.ms - Date.parse(ref.measured_at)) / DAY_MS;
    let rate = 0;
    let component = 'dz';
    for (const k of ['dx', 'dy', 'dz'] as const) {
      const a = rec[k];
      const b = ref[k];
      if (a === null || b === null) continue;
      const r = Math.abs(a - b) / days;
      if (r > rate) [rate, component] = [r, k];
    }
    const level = levelOf(rate, settings.rateWarningMmPerDay, settings.rateAlarmMmPerDay);
    if (!level) {
      out.push({ reading, breach: null });
      continue;
    }
    const limit = level === 'alarm' ? settings.rateAlarmMmPerDay! : settings.rateWarningMmPerDay!;
    out.push({
      reading,
      breach: {
        level,
        reason: `rate ${short(rate)} mm/day over ${short(days * 24)} h exceeds ${short(limit)} mm/day (${component}, ${level})`,
        warning: settings.rateWarningMmPerDay,
        alarm: settings.rateAlarmMmPerDay,
        value: Number(rate.toFixed(6)),
        dataId: reading.id,
        measuredAt: new Date(rec.ms).toISOString(),
      },
    });
  }
  return out;
}
