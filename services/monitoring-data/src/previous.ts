import { arrayParam, type Queryable } from '@mp/db';
import type { CheckedRecord, StoredMeasurement } from './record-rules.js';

interface Row {
  point_id: string;
  measured_at: string;
  dx: number | null;
  dy: number | null;
  dz: number | null;
}

const toMeasurement = (r: Row): StoredMeasurement => ({ ms: Date.parse(r.measured_at), dx: r.dx, dy: r.dy, dz: r.dz });

/**
 * The stored valid measurements the abrupt-change rule compares with, per point that has a limit:
 * the latest one up to the newest record of the write — one index probe per point, in one
 * statement. When that one falls inside the write's time span (a backfill between stored
 * records), the stored records of that span are read as well, so every record meets its true
 * predecessor.
 */
export async function loadPrevious(db: Queryable, records: CheckedRecord[]): Promise<Map<string, StoredMeasurement[]>> {
  const span = new Map<string, { min: number; max: number }>();
  for (const r of records) {
    if (r.point.abruptLimit === null) continue;
    const s = span.get(r.point.id);
    if (!s) span.set(r.point.id, { min: r.ms, max: r.ms });
    else {
      if (r.ms < s.min) s.min = r.ms;
      if (r.ms > s.max) s.max = r.ms;
    }
  }
  const out = new Map<string, StoredMeasurement[]>();
  if (span.size === 0) return out;
  const ids = [...span.keys()];
  const { rows } = await db.query<Row>(
    `SELECT r.point_id, d.measured_at, d.dx, d.dy, d.dz
       FROM unnest($1::text[], $2::timestamptz[]) AS r(point_id, until)
       CROSS JOIN LATERAL (
         SELECT measured_at, dx, dy, dz FROM data_records d
          WHERE d.point_id = r.point_id AND d.measured_at <= r.until AND d.quality_flag <> 'invalid'
          ORDER BY d.measured_at DESC LIMIT 1) d`,
    [
      arrayParam('text', ids),
      arrayParam(
        'timestamptz',
        ids.map((id) => span.get(id)!.max),
      ),
    ],
    { prepare: 'md_previous' },
  );
  for (const row of rows) {
    const m = toMeasurement(row);
    const s = span.get(row.point_id)!;
    if (m.ms < s.min) {
      out.set(row.point_id, [m]);
      continue;
    }
    const inside = await db.query<Row>(
      `(SELECT point_id, measured_at, dx, dy, dz FROM data_records
         WHERE point_id = $1 AND measured_at < $2 AND quality_flag <> 'invalid' ORDER BY measured_at DESC LIMIT 1)
       UNION ALL
       (SELECT point_id, measured_at, dx, dy, dz FROM data_records
         WHERE point_id = $1 AND measured_at >= $2 AND measured_at <= $3 AND quality_flag <> 'invalid')
       ORDER BY measured_at`,
      [row.point_id, new Date(s.min).toISOString(), new Date(s.max).toISOString()],
    );
    out.set(row.point_id, inside.rows.map(toMeasurement));
  }
  return out;
}
