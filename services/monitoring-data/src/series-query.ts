import { arrayParam, type Queryable } from '@mp/db';
import { ROLLUP_COLUMNS } from './rollups.js';
import type { Grid, Piece } from './series-plan.js';

export interface BucketRow {
  start: string;
  count: number;
  [k: string]: number | string | null;
}

const IN_PIECE = 'point_id = $1 AND bucket_start >= q.lo AND bucket_start < q.hi';
const PIECE = `${IN_PIECE} AND bucket_seconds = q.seconds::int`;
const PARTS = ROLLUP_COLUMNS.filter((c) => c !== 'warning_count' && c !== 'alarm_count');
const rawPart = (c: string) => {
  if (c === 'count') return '1';
  const axis = c.slice(0, 2);
  return c.endsWith('_n') ? `(d.${axis} IS NOT NULL)::int` : c.endsWith('_sum') ? `coalesce(round(d.${axis} * 1e6)::int8, 0)` : `d.${axis}`;
};
// the mean from the exact sum (micrometres), rounded to 1e-6 mm (README)
const merged = (c: string) =>
  c.endsWith('_min')
    ? `min(${c}) AS ${c}`
    : c.endsWith('_max')
      ? `max(${c}) AS ${c}`
      : c.endsWith('_sum')
        ? `round(sum(${c})::numeric / nullif(sum(${c.slice(0, 2)}_n), 0) / 1e6, 6)::float8 AS ${c.slice(0, 2)}_avg`
        : `sum(${c}) AS ${c}`;

/**
 * Rollup rows of the rollup pieces (folded rows of the piece's level, and the hour deltas not yet
 * folded in its range: a piece lies in one bucket, so they land in the same one) and raw rows of
 * the raw pieces, each put in its bucket of the grid and merged per bucket: counts and sums add
 * up, min and max of the parts are the bucket's.
 * Each piece is one range scan of the rollups' primary key or of the (point_id, measured_at)
 * index, in the partitions of its range: a lateral subquery per piece (OFFSET 0 keeps the planner
 * from flattening it into a join, which it ran as a scan of every partition of the table).
 */
const SQL = `SELECT p.start, sum(p.count)::int AS count, ${PARTS.filter((c) => c !== 'count' && !c.endsWith('_n'))
  .map(merged)
  .join(', ')}
  FROM (
    SELECT date_bin(make_interval(secs => $2), r.bucket_start, $3::timestamptz) AS start, ${PARTS.map((c) => `r.${c}`).join(', ')}
      FROM unnest($4::float8[], $5::timestamptz[], $6::timestamptz[]) AS q(seconds, lo, hi),
           LATERAL (SELECT * FROM data_rollups WHERE ${PIECE} UNION ALL SELECT * FROM data_rollup_deltas WHERE ${IN_PIECE} OFFSET 0) r
    UNION ALL
    SELECT date_bin(make_interval(secs => $2), d.measured_at, $3::timestamptz), ${PARTS.map(rawPart).join(', ')}
      FROM unnest($7::timestamptz[], $8::timestamptz[]) AS q(lo, hi),
           LATERAL (SELECT * FROM data_records WHERE point_id = $1 AND measured_at >= q.lo AND measured_at < q.hi AND quality_flag <> 'invalid' OFFSET 0) d
  ) p
 GROUP BY p.start HAVING sum(p.count) > 0 ORDER BY p.start`;

/** $1 … $8 of both series statements: the point, the grid, and the rolled-up and raw pieces' bounds. */
function pieceParams(pointId: string, grid: Grid, pieces: Piece[]): unknown[] {
  const rolled = pieces.filter((p) => p.seconds > 0);
  const raw = pieces.filter((p) => p.seconds === 0);
  return [
    pointId,
    grid.interval,
    new Date(grid.origin).toISOString(),
    arrayParam(
      'float8',
      rolled.map((p) => p.seconds),
    ),
    arrayParam(
      'timestamptz',
      rolled.map((p) => p.lo),
    ),
    arrayParam(
      'timestamptz',
      rolled.map((p) => p.hi),
    ),
    arrayParam(
      'timestamptz',
      raw.map((p) => p.lo),
    ),
    arrayParam(
      'timestamptz',
      raw.map((p) => p.hi),
    ),
  ];
}

/** The buckets of a point's series that hold records: start, count, and per axis min/avg/max. */
export async function readBuckets(db: Queryable, pointId: string, grid: Grid, pieces: Piece[]): Promise<BucketRow[]> {
  const { rows } = await db.query<BucketRow>(SQL, pieceParams(pointId, grid, pieces));
  return rows;
}

export interface ChannelBucketRow {
  start: string;
  count: number;
  min: number;
  avg: number;
  max: number;
}

/**
 * The same for one channel of an instrument point (docs/adr/0118): rollup pieces from
 * data_channel_rollups and its hour deltas, raw pieces from the records' `channels` jsonb, merged
 * per bucket. `count` is the number of values of the channel in the bucket.
 */
const CHANNEL_SQL = `SELECT p.start, sum(p.n)::int AS count, min(p.min) AS min, max(p.max) AS max,
       round(sum(p.sum) / nullif(sum(p.n), 0) / 1e6, 6)::float8 AS avg
  FROM (
    SELECT date_bin(make_interval(secs => $2), r.bucket_start, $3::timestamptz) AS start, r.n, r.min, r.max, r.sum
      FROM unnest($4::float8[], $5::timestamptz[], $6::timestamptz[]) AS q(seconds, lo, hi),
           LATERAL (SELECT bucket_start, n, min, max, sum FROM data_channel_rollups
                     WHERE point_id = $1 AND channel = $9 AND bucket_seconds = q.seconds::int AND bucket_start >= q.lo AND bucket_start < q.hi
                    UNION ALL
                    SELECT bucket_start, n, min, max, sum FROM data_channel_rollup_deltas
                     WHERE point_id = $1 AND channel = $9 AND bucket_start >= q.lo AND bucket_start < q.hi OFFSET 0) r
    UNION ALL
    SELECT date_bin(make_interval(secs => $2), d.measured_at, $3::timestamptz), 1, d.v, d.v, round(d.v * 1e6)::numeric
      FROM unnest($7::timestamptz[], $8::timestamptz[]) AS q(lo, hi),
           LATERAL (SELECT measured_at, (channels ->> $9)::float8 AS v FROM data_records
                     WHERE point_id = $1 AND measured_at >= q.lo AND measured_at < q.hi AND quality_flag <> 'invalid'
                       AND jsonb_typeof(channels -> $9) = 'number' OFFSET 0) d
  ) p
 GROUP BY p.start HAVING sum(p.n) > 0 ORDER BY p.start`;

export async function readChannelBuckets(db: Queryable, pointId: string, channel: string, grid: Grid, pieces: Piece[]): Promise<ChannelBucketRow[]> {
  const { rows } = await db.query<ChannelBucketRow>(CHANNEL_SQL, [...pieceParams(pointId, grid, pieces), channel]);
  return rows;
}

/** Whether any rollup row of the point holds the channel (a key of `channels` outside the type's list). */
export async function hasChannelRollups(db: Queryable, pointId: string, channel: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM data_channel_rollups WHERE point_id = $1 AND channel = $2
     UNION ALL SELECT 1 FROM data_channel_rollup_deltas WHERE point_id = $1 AND channel = $2 LIMIT 1`,
    [pointId, channel],
  );
  return rows.length > 0;
}
