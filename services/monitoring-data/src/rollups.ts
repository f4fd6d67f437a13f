import { arrayParam, type Database, type Queryable } from '@mp/db';
import type { CheckedRecord } from './record-rules.js';

/**
 * Rollups (ADR 0023): per point, one row per UTC hour and per UTC day that holds valid or suspect
 * records, with their count, per axis the count of values, min, max and sum of dx/dy/dz, and the
 * warning and alarm counts. Series over an hour or more read these rows instead of raw records.
 * Sums are numeric: exact, so a mean does not depend on the order its values were added in (a
 * float sum did, and a mean rounded to 1e-6 mm could differ from the raw rows' in the last digit).
 * Finest first: each level is recomputed from the one before it (the first from raw rows).
 */
export const ROLLUP_SECONDS = [3600, 86_400] as const;

const AXES = ['dx', 'dy', 'dz'] as const;

/** The aggregate columns of a rollup row, in the order every statement below lists them. */
export const ROLLUP_COLUMNS = ['count', ...AXES.flatMap((a) => [`${a}_n`, `${a}_min`, `${a}_max`, `${a}_sum`]), 'warning_count', 'alarm_count'];

/** Aggregates of raw rows (columns dx, dy, dz, status) into rollup columns. */
export const RAW_AGGREGATES = [
  'count(*)::int',
  ...AXES.flatMap((a) => [`count(${a})::int`, `min(${a})`, `max(${a})`, `coalesce(sum(${a}::numeric), 0)`]),
  `count(*) FILTER (WHERE status = 'warning')::int`,
  `count(*) FILTER (WHERE status = 'alarm')::int`,
].join(', ');

/** Aggregates of rollup rows into rollup columns (0, not NULL, over no rows). */
export const MERGED_AGGREGATES = ROLLUP_COLUMNS.map((c) =>
  c.endsWith('_min') ? `min(${c})` : c.endsWith('_max') ? `max(${c})` : c.endsWith('_sum') ? `coalesce(sum(${c}), 0)` : `coalesce(sum(${c}), 0)::int`,
).join(', ');

/** What an upsert adds to an existing row: counts and sums add up, min and max widen. */
const MERGE_ON_CONFLICT = ROLLUP_COLUMNS.map((c) => {
  if (c.endsWith('_min')) return `${c} = least(r.${c}, excluded.${c})`;
  if (c.endsWith('_max')) return `${c} = greatest(r.${c}, excluded.${c})`;
  return `${c} = r.${c} + excluded.${c}`;
}).join(', ');

const KEY = 'point_id, bucket_seconds, bucket_start';
const bin = (seconds: string, at: string) => `date_bin(make_interval(secs => ${seconds}), ${at}, timestamptz '1970-01-01 00:00:00+00')`;

/**
 * Every level's rows touched by the records, aggregated and added to what is stored, in one
 * statement. The rows are upserted in key order, so concurrent writes touching the same buckets
 * lock them in the same order and wait for each other instead of deadlocking.
 */
const ADD_SQL = `INSERT INTO data_rollups AS r (${KEY}, ${ROLLUP_COLUMNS.join(', ')})
  SELECT u.point_id, l.s, ${bin('l.s', 'u.measured_at')}, ${RAW_AGGREGATES}
    FROM unnest($1::text[], $2::timestamptz[], $3::float8[], $4::float8[], $5::float8[], $6::text[]) AS u(point_id, measured_at, dx, dy, dz, status)
   CROSS JOIN unnest(ARRAY[${ROLLUP_SECONDS.join(', ')}]) AS l(s)
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (${KEY}) DO UPDATE SET ${MERGE_ON_CONFLICT}`;

/** Adds freshly stored (valid) records to their point's rollups, in the write's transaction. */
export async function addToRollups(tx: Queryable, records: readonly CheckedRecord[]): Promise<void> {
  const n = records.length;
  if (n === 0) return;
  const point = new Array<string>(n),
    at = new Array<number>(n),
    status = new Array<string>(n);
  const dx = new Array<number | null>(n),
    dy = new Array<number | null>(n),
    dz = new Array<number | null>(n);
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    point[i] = r.point.id;
    at[i] = r.ms;
    dx[i] = r.dx;
    dy[i] = r.dy;
    dz[i] = r.dz;
    status[i] = r.status;
  }
  await tx.query(
    ADD_SQL,
    [
      arrayParam('text', point),
      arrayParam('timestamptz', at),
      arrayParam('float8', dx),
      arrayParam('float8', dy),
      arrayParam('float8', dz),
      arrayParam('text', status),
    ],
    { prepare: 'md_add_rollups' },
  );
}

/** The source of level i's aggregates over [$3, $3 + $2 s) of point $1: raw rows, or level i-1. */
const sourceOf = (i: number) =>
  i === 0
    ? `SELECT ${RAW_AGGREGATES} FROM data_records WHERE point_id = $1 AND measured_at >= $3 AND measured_at < $3 + make_interval(secs => $2) AND quality_flag <> 'invalid'`
    : `SELECT ${MERGED_AGGREGATES} FROM data_rollups WHERE point_id = $1 AND bucket_seconds = ${ROLLUP_SECONDS[i - 1]} AND bucket_start >= $3 AND bucket_start < $3 + make_interval(secs => $2)`;

/**
 * Recomputes the buckets holding `ms` of a point after a record was corrected or deleted (a
 * minimum or maximum cannot be taken back), finest level first, each from the level below. The
 * row is locked first (created empty if missing): a concurrent write into the bucket then waits
 * and adds its records after this commits, and writes committed before are seen by the recount.
 */
export async function recomputeRollups(tx: Queryable, pointId: string, ms: number): Promise<void> {
  for (const [i, seconds] of ROLLUP_SECONDS.entries()) {
    const start = new Date(Math.floor(ms / (seconds * 1000)) * seconds * 1000).toISOString();
    const key = [pointId, seconds, start];
    await tx.query(
      `INSERT INTO data_rollups AS r (${KEY}, ${ROLLUP_COLUMNS.join(', ')}) VALUES ($1, $2, $3, ${ROLLUP_COLUMNS.map((c) => (c.endsWith('_min') || c.endsWith('_max') ? 'NULL' : '0')).join(', ')})
        ON CONFLICT (${KEY}) DO UPDATE SET count = r.count`,
      key,
    );
    await tx.query(
      `UPDATE data_rollups SET (${ROLLUP_COLUMNS.join(', ')}) = (${sourceOf(i)}) WHERE point_id = $1 AND bucket_seconds = $2 AND bucket_start = $3`,
      key,
    );
    await tx.query('DELETE FROM data_rollups WHERE point_id = $1 AND bucket_seconds = $2 AND bucket_start = $3 AND count = 0', key);
  }
}

/**
 * Every rollup row, computed again from the raw rows (`npm run rollups:rebuild`, and the
 * migration that adds rollups to a database holding data). Writes wait while it runs: the table
 * is locked, and records written meanwhile add to the rebuilt rows once it commits.
 */
export async function rebuildRollups(db: Database): Promise<{ rows: number }> {
  return db.transaction(async (tx) => {
    await tx.query('LOCK TABLE data_rollups IN EXCLUSIVE MODE');
    await tx.query('DELETE FROM data_rollups');
    let rows = 0;
    for (const sql of rebuildStatements()) rows += (await tx.query(sql)).rowCount;
    return { rows };
  });
}

/** The statements that fill an empty rollup table from the raw rows, finest level first. */
export function rebuildStatements(): string[] {
  return ROLLUP_SECONDS.map((seconds, i) =>
    i === 0
      ? `INSERT INTO data_rollups (${KEY}, ${ROLLUP_COLUMNS.join(', ')})
           SELECT point_id, ${seconds}, ${bin(String(seconds), 'measured_at')}, ${RAW_AGGREGATES}
             FROM data_records WHERE quality_flag <> 'invalid' GROUP BY 1, 2, 3`
      : `INSERT INTO data_rollups (${KEY}, ${ROLLUP_COLUMNS.join(', ')})
           SELECT point_id, ${seconds}, ${bin(String(seconds), 'bucket_start')}, ${MERGED_AGGREGATES}
             FROM data_rollups WHERE bucket_seconds = ${ROLLUP_SECONDS[i - 1]} GROUP BY 1, 2, 3`,
  );
}
