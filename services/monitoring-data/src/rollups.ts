import { arrayParam, type Database, type Queryable } from '@mp/db';
import type { CheckedRecord } from './record-rules.js';

/**
 * Rollups (ADR 0023): per point, the valid and suspect records of every UTC hour and day, as their
 * count, per axis the count of values, min, max and sum of dx/dy/dz, and the warning and alarm
 * counts. Series over an hour or more read these instead of raw records. Finest first: each level
 * is recomputed from the one before it (the first from raw rows).
 *
 * A write appends its share as delta rows (`data_rollup_deltas`): no row is updated, so concurrent
 * writes into the same hour never wait for each other. `foldRollups` moves deltas into
 * `data_rollups` (one row per bucket) in the background; a bucket's value is always its folded row
 * plus its deltas, whichever way they are split. Sums are numeric: exact, so a mean does not depend
 * on the order its values were added in.
 */
export const ROLLUP_SECONDS = [3600, 86_400] as const;

const AXES = ['dx', 'dy', 'dz'] as const;

/** The aggregate columns of a rollup row, in the order every statement below lists them. */
export const ROLLUP_COLUMNS = ['count', ...AXES.flatMap((a) => [`${a}_n`, `${a}_min`, `${a}_max`, `${a}_sum`]), 'warning_count', 'alarm_count'];
const COLUMNS = ROLLUP_COLUMNS.join(', ');
const KEY = 'point_id, bucket_seconds, bucket_start';

/** Aggregates of raw rows (columns dx, dy, dz, status) into rollup columns. */
const RAW_AGGREGATES = [
  'count(*)::int',
  ...AXES.flatMap((a) => [`count(${a})::int`, `min(${a})`, `max(${a})`, `coalesce(sum(${a}::numeric), 0)`]),
  `count(*) FILTER (WHERE status = 'warning')::int`,
  `count(*) FILTER (WHERE status = 'alarm')::int`,
].join(', ');

/** Aggregates of rollup rows into rollup columns (0, not NULL, over no rows). */
const MERGED_AGGREGATES = ROLLUP_COLUMNS.map((c) =>
  c.endsWith('_min') ? `min(${c})` : c.endsWith('_max') ? `max(${c})` : c.endsWith('_sum') ? `coalesce(sum(${c}), 0)` : `coalesce(sum(${c}), 0)::int`,
).join(', ');

/** What folding adds to a stored row: counts and sums add up, min and max widen. */
const ADD_ON_CONFLICT = ROLLUP_COLUMNS.map((c) => {
  if (c.endsWith('_min')) return `${c} = least(r.${c}, excluded.${c})`;
  if (c.endsWith('_max')) return `${c} = greatest(r.${c}, excluded.${c})`;
  return `${c} = r.${c} + excluded.${c}`;
}).join(', ');

const bin = (seconds: string, at: string) => `date_bin(make_interval(secs => ${seconds}), ${at}, timestamptz '1970-01-01 00:00:00+00')`;

/** Folding and recounting exclude each other (fold: exclusive; recounts: shared), across replicas. */
const FOLD_LOCK = `hashtext('monitoring_data.data_rollups')`;

const ADD_SQL = `INSERT INTO data_rollup_deltas (${KEY}, ${COLUMNS})
  SELECT u.point_id, l.s, ${bin('l.s', 'u.measured_at')}, ${RAW_AGGREGATES}
    FROM unnest($1::text[], $2::timestamptz[], $3::float8[], $4::float8[], $5::float8[], $6::text[]) AS u(point_id, measured_at, dx, dy, dz, status)
   CROSS JOIN unnest(ARRAY[${ROLLUP_SECONDS.join(', ')}]) AS l(s)
   GROUP BY 1, 2, 3`;

/** Appends freshly stored (valid) records to their point's rollups, in the write's transaction: one insert. */
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

/**
 * Moves up to `limit` delta rows into their buckets' folded rows, in one statement; false when
 * another replica is folding (it will have them). Deltas of writes not yet committed are not seen
 * and wait for the next round.
 */
export async function foldRollups(db: Database, limit = 50_000): Promise<{ folded: number }> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${FOLD_LOCK}) AS ok`);
    if (!rows[0]?.ok) return { folded: 0 };
    const { rows: moved } = await tx.query<{ n: number }>(
      `WITH moved AS (DELETE FROM data_rollup_deltas WHERE ctid = ANY (ARRAY(SELECT ctid FROM data_rollup_deltas LIMIT $1)) RETURNING *),
            folded AS (
              INSERT INTO data_rollups AS r (${KEY}, ${COLUMNS})
              SELECT ${KEY}, ${MERGED_AGGREGATES} FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
              ON CONFLICT (${KEY}) DO UPDATE SET ${ADD_ON_CONFLICT})
       SELECT count(*)::int AS n FROM moved`,
      [limit],
    );
    return { folded: moved[0]?.n ?? 0 };
  });
}

/** Level i's aggregate over [$3, $3 + $2 s) of point $1: from raw rows, or from level i-1 (folded and deltas). */
const sourceOf = (i: number) => {
  if (i === 0)
    return `SELECT ${RAW_AGGREGATES} FROM data_records WHERE point_id = $1 AND measured_at >= $3 AND measured_at < $3 + make_interval(secs => $2) AND quality_flag <> 'invalid'`;
  const finer = `point_id = $1 AND bucket_seconds = ${ROLLUP_SECONDS[i - 1]} AND bucket_start >= $3 AND bucket_start < $3 + make_interval(secs => $2)`;
  return `SELECT ${MERGED_AGGREGATES} FROM (SELECT ${COLUMNS} FROM data_rollups WHERE ${finer} UNION ALL SELECT ${COLUMNS} FROM data_rollup_deltas WHERE ${finer}) f`;
};

/**
 * Recounts the buckets holding `ms` of a point after a record was corrected or deleted (a minimum
 * or maximum cannot be taken back), finest level first, each from the level below, in the caller's
 * transaction. Folding waits meanwhile; the bucket's folded row is locked first (created empty if
 * missing), so recounts of one bucket follow each other, each seeing the one before. Then one
 * statement, on one snapshot, drops the deltas it sees and sets the folded row to the recount: a
 * write committed before is in both, one not yet committed in neither (its delta stays).
 */
export async function recomputeRollups(tx: Queryable, pointId: string, ms: number): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock_shared(${FOLD_LOCK})`);
  for (const [i, seconds] of ROLLUP_SECONDS.entries()) {
    const start = new Date(Math.floor(ms / (seconds * 1000)) * seconds * 1000).toISOString();
    const key = [pointId, seconds, start];
    const where = 'point_id = $1 AND bucket_seconds = $2 AND bucket_start = $3';
    await tx.query(
      `INSERT INTO data_rollups AS r (${KEY}, ${COLUMNS}) VALUES ($1, $2, $3, ${ROLLUP_COLUMNS.map((c) => (c.endsWith('_min') || c.endsWith('_max') ? 'NULL' : '0')).join(', ')})
        ON CONFLICT (${KEY}) DO UPDATE SET count = r.count`,
      key,
    );
    await tx.query(
      `WITH dropped AS (DELETE FROM data_rollup_deltas WHERE ${where}) UPDATE data_rollups SET (${COLUMNS}) = (${sourceOf(i)}) WHERE ${where}`,
      key,
    );
    await tx.query(`DELETE FROM data_rollups WHERE ${where} AND count = 0`, key);
  }
}

/**
 * Every rollup row, computed again from the raw rows (`npm run rollups:rebuild`). Writes wait
 * while it runs (both tables are locked), and add their records once it commits; series keep
 * reading the old rows meanwhile.
 */
export async function rebuildRollups(db: Database): Promise<{ rows: number }> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${FOLD_LOCK})`);
    await tx.query('LOCK TABLE data_rollups, data_rollup_deltas IN EXCLUSIVE MODE');
    await tx.query('DELETE FROM data_rollup_deltas');
    await tx.query('DELETE FROM data_rollups');
    let rows = 0;
    for (const sql of rebuildStatements()) rows += (await tx.query(sql)).rowCount;
    return { rows };
  });
}

/** The statements that fill an empty `data_rollups` from the raw rows, finest level first. */
export function rebuildStatements(): string[] {
  return ROLLUP_SECONDS.map((seconds, i) =>
    i === 0
      ? `INSERT INTO data_rollups (${KEY}, ${COLUMNS})
           SELECT point_id, ${seconds}, ${bin(String(seconds), 'measured_at')}, ${RAW_AGGREGATES}
             FROM data_records WHERE quality_flag <> 'invalid' GROUP BY 1, 2, 3`
      : `INSERT INTO data_rollups (${KEY}, ${COLUMNS})
           SELECT point_id, ${seconds}, ${bin(String(seconds), 'bucket_start')}, ${MERGED_AGGREGATES}
             FROM data_rollups WHERE bucket_seconds = ${ROLLUP_SECONDS[i - 1]} GROUP BY 1, 2, 3`,
  );
}
