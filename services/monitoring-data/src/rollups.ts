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
 * plus its deltas, whichever way they are split. Sums are whole micrometres (1e-6 mm, bigint): exact
 * and cheap, so a mean does not depend on the order its values were added in (displacements are
 * stored to 1e-6 mm when derived; a given one with more decimals counts rounded to it in the mean).
 */
export const ROLLUP_SECONDS = [3600, 86_400] as const;
/** The level writes append deltas to; folding carries them up to the coarser levels too. */
const FINEST = ROLLUP_SECONDS[0];

const AXES = ['dx', 'dy', 'dz'] as const;

/** The aggregate columns of a rollup row, in the order every statement below lists them. */
export const ROLLUP_COLUMNS = ['count', ...AXES.flatMap((a) => [`${a}_n`, `${a}_min`, `${a}_max`, `${a}_sum`]), 'warning_count', 'alarm_count'];
const COLUMNS = ROLLUP_COLUMNS.join(', ');
const KEY = 'point_id, bucket_seconds, bucket_start';

/** Aggregates of raw rows (columns dx, dy, dz, status) into rollup columns. */
const RAW_AGGREGATES = [
  'count(*)::int',
  ...AXES.flatMap((a) => [`count(${a})::int`, `min(${a})`, `max(${a})`, `coalesce(sum(round(${a} * 1e6)::int8), 0)::int8`]),
  `count(*) FILTER (WHERE status = 'warning')::int`,
  `count(*) FILTER (WHERE status = 'alarm')::int`,
].join(', ');

/** Aggregates of rollup rows into rollup columns (0, not NULL, over no rows). */
const MERGED_AGGREGATES = ROLLUP_COLUMNS.map((c) =>
  c.endsWith('_min') ? `min(${c})` : c.endsWith('_max') ? `max(${c})` : c.endsWith('_sum') ? `coalesce(sum(${c}), 0)::int8` : `coalesce(sum(${c}), 0)::int`,
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
  SELECT * FROM unnest($1::text[], $2::float8[], $3::timestamptz[], ${ROLLUP_COLUMNS.map((c, i) => `$${i + 4}::float8[]`).join(', ')})`;

const MIN = Number.POSITIVE_INFINITY;
const MAX = Number.NEGATIVE_INFINITY;

/**
 * Appends freshly stored (valid) records to their point's rollups, in the write's transaction: the
 * records are aggregated here, per point and hour, and the few hundred rows of a 1,000-record
 * write go in with one insert (PostgreSQL only stores them).
 */
export async function addToRollups(tx: Queryable, records: readonly CheckedRecord[]): Promise<void> {
  if (records.length === 0) return;
  const buckets = new Map<string, { point: string; seconds: number; start: number; v: number[] }>();
  // only a write holding instrument channels appends channel deltas: a total-station write runs
  // exactly the statements it ran before (docs/adr/0118)
  let channelBuckets: Map<string, ChannelBucket> | undefined;
  for (const r of records) {
    const values = [r.dx, r.dy, r.dz];
    {
      const seconds = FINEST;
      const unit = seconds * 1000;
      const start = Math.floor(r.ms / unit) * unit;
      const key = `${r.point.id} ${seconds} ${start}`;
      let b = buckets.get(key);
      // count, (n, min, max, sum) per axis, warning, alarm: ROLLUP_COLUMNS' order
      if (!b) buckets.set(key, (b = { point: r.point.id, seconds, start, v: [0, 0, MIN, MAX, 0, 0, MIN, MAX, 0, 0, MIN, MAX, 0, 0, 0] }));
      const v = b.v;
      v[0]!++;
      for (let a = 0; a < 3; a++) {
        const x = values[a];
        if (x === null || x === undefined) continue;
        const o = 1 + a * 4;
        v[o]!++;
        if (x < v[o + 1]!) v[o + 1] = x;
        if (x > v[o + 2]!) v[o + 2] = x;
        v[o + 3]! += Math.round(x * 1e6);
      }
      if (r.status === 'warning') v[13]!++;
      else if (r.status === 'alarm') v[14]!++;
      if (r.channels) addChannels((channelBuckets ??= new Map()), r.point.id, start, r.channels);
    }
  }
  if (channelBuckets?.size) await addChannelDeltas(tx, [...channelBuckets.values()]);
  const rows = [...buckets.values()];
  // an axis without values has no min or max: NULL
  const column = (i: number) =>
    arrayParam(
      'float8',
      rows.map((b) => (b.v[i] === MIN || b.v[i] === MAX ? null : b.v[i]!)),
    );
  await tx.query(
    ADD_SQL,
    [
      arrayParam(
        'text',
        rows.map((b) => b.point),
      ),
      arrayParam(
        'float8',
        rows.map((b) => b.seconds),
      ),
      arrayParam(
        'timestamptz',
        rows.map((b) => b.start),
      ),
      ...ROLLUP_COLUMNS.map((_, i) => column(i)),
    ],
    { prepare: 'md_add_rollups' },
  );
}

/**
 * Moves up to `limit` delta rows (of one point, when `pointId` is given) into the folded rows of
 * their hour and of the day holding it, in one statement; nothing when another replica is folding
 * (it will have them). Deltas of writes not yet committed are not seen and wait for the next round.
 */
export async function foldRollups(db: Database, limit = 50_000, pointId?: string): Promise<{ folded: number; foldedChannels: number }> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${FOLD_LOCK}) AS ok`);
    if (!rows[0]?.ok) return { folded: 0, foldedChannels: 0 };
    const { rows: moved } = await tx.query<{ n: number }>(
      `WITH moved AS (DELETE FROM data_rollup_deltas WHERE ctid = ANY (ARRAY(SELECT ctid FROM data_rollup_deltas
                        ${pointId === undefined ? '' : 'WHERE point_id = $2'} LIMIT $1)) RETURNING *),
            folded AS (
              INSERT INTO data_rollups AS r (${KEY}, ${COLUMNS})
              SELECT * FROM (${ROLLUP_SECONDS.map((seconds) => `SELECT point_id, ${seconds}, ${bin(String(seconds), 'bucket_start')}, ${MERGED_AGGREGATES} FROM moved GROUP BY 1, 2, 3`).join(' UNION ALL ')}) l
               ORDER BY 1, 2, 3
              ON CONFLICT (${KEY}) DO UPDATE SET ${ADD_ON_CONFLICT})
       SELECT count(*)::int AS n FROM moved`,
      pointId === undefined ? [limit] : [limit, pointId],
    );
    const { rows: movedChannels } = await tx.query<{ n: number }>(foldChannelsSql(pointId !== undefined), pointId === undefined ? [limit] : [limit, pointId]);
    return { folded: moved[0]?.n ?? 0, foldedChannels: movedChannels[0]?.n ?? 0 };
  });
}

/**
 * Folding point by point, for a round whose single statement failed: each point's deltas are
 * folded in a transaction of their own, and a point whose fold fails still (a sum beyond a 64-bit
 * integer, say, from values stored before they were bounded at the door) has its deltas moved
 * aside to `data_rollup_rejects` with the error. One bad row then costs its point's rollups —
 * `npm run rollups:rebuild` recounts them once the record is corrected or deleted — and never
 * stops the folding of every other point. Returns the points set aside.
 */
export async function foldPointByPoint(db: Database, limit = 50_000): Promise<{ folded: number; rejected: { pointId: string; error: string }[] }> {
  const { rows: points } = await db.query<{ point_id: string }>('SELECT DISTINCT point_id FROM (SELECT point_id FROM data_rollup_deltas LIMIT $1) d', [limit]);
  let folded = 0;
  const rejected: { pointId: string; error: string }[] = [];
  for (const { point_id: pointId } of points) {
    try {
      folded += (await foldRollups(db, limit, pointId)).folded;
    } catch (err) {
      const error = String((err as Error).message ?? err).slice(0, 500);
      const set = await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${FOLD_LOCK}) AS ok`);
        if (!rows[0]?.ok) return false;
        await tx.query(
          `WITH moved AS (DELETE FROM data_rollup_deltas WHERE point_id = $1 RETURNING *)
           INSERT INTO data_rollup_rejects (${KEY}, ${COLUMNS}, error) SELECT ${KEY}, ${COLUMNS}, $2 FROM moved`,
          [pointId, error],
        );
        return true;
      });
      if (set) rejected.push({ pointId, error });
    }
  }
  return { folded, rejected };
}

/**
 * Level i's aggregate over [$3, $3 + $2 s) of point $1 with the deltas left out: from raw rows for
 * the finest level, else from the folded rows of the level below (deltas are added to every level
 * when they are folded, so a folded coarse row is always the sum of the folded finer ones).
 */
const sourceOf = (i: number) =>
  i === 0
    ? `SELECT ${RAW_AGGREGATES} FROM data_records WHERE point_id = $1 AND measured_at >= $3 AND measured_at < $3 + make_interval(secs => $2) AND quality_flag <> 'invalid'`
    : `SELECT ${MERGED_AGGREGATES} FROM data_rollups WHERE point_id = $1 AND bucket_seconds = ${ROLLUP_SECONDS[i - 1]} AND bucket_start >= $3 AND bucket_start < $3 + make_interval(secs => $2)`;

/**
 * Recounts the buckets holding `ms` of a point after a record was corrected or deleted (a minimum
 * or maximum cannot be taken back), finest level first, in the caller's transaction. Folding waits
 * meanwhile; the bucket's folded row is locked first (created empty if missing), so recounts of
 * one bucket follow each other, each seeing the one before. Then one statement, on one snapshot,
 * drops the hour's deltas it sees and sets its folded row to the recount of the raw rows: a write
 * committed before is in both, one not yet committed in neither (its delta stays, and is folded
 * into the hour and the day later). The day is then the sum of its folded hours.
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
    // the finest level drops the bucket's deltas (the recount holds them); coarser levels have none
    const drop = i === 0 ? `WITH dropped AS (DELETE FROM data_rollup_deltas WHERE ${where}) ` : '';
    await tx.query(`${drop}UPDATE data_rollups SET (${COLUMNS}) = (${sourceOf(i)}) WHERE ${where}`, key);
    await tx.query(`DELETE FROM data_rollups WHERE ${where} AND count = 0`, key);
    // the point's channel rows of the bucket, recounted the same way (the bucket's data_rollups
    // row locked above keeps recounts of the bucket in turn)
    await tx.query(recountChannelsSql(i), key);
    await tx.query(`DELETE FROM data_channel_rollups WHERE ${where} AND n = 0`, key);
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
    await tx.query('LOCK TABLE data_rollups, data_rollup_deltas, data_channel_rollups, data_channel_rollup_deltas IN EXCLUSIVE MODE');
    await tx.query('DELETE FROM data_rollup_deltas');
    await tx.query('DELETE FROM data_rollups');
    await tx.query('DELETE FROM data_channel_rollup_deltas');
    await tx.query('DELETE FROM data_channel_rollups');
    let rows = 0;
    for (const sql of [...rebuildStatements(), ...rebuildChannelStatements()]) rows += (await tx.query(sql)).rowCount;
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

// ---- Rollups per instrument channel (docs/adr/0118) ----------------------------------------------
//
// data_channel_rollups holds, per point, channel, UTC hour and day, the count (n), min, max and
// sum of the channel's values, the sum in whole 1e-6 of the channel's unit as numeric (exact, and
// without a bound: a derived channel may be large). Any numeric key of a record's `channels` is
// rolled up: the type's channels and a point's derived ones alike. Maintained as data_rollups are:
// writes append hour deltas, folding moves them into the hour and the day, corrections recount.

const CHANNEL_KEY = 'point_id, channel, bucket_seconds, bucket_start';
const CHANNEL_COLUMNS = 'n, min, max, sum';
/** A record's channel value, NULL unless it is a number (the jsonb may hold anything a later release wrote). */
const channelValue = (json: string) => `CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json})::float8 END`;
const MERGED_CHANNEL = 'coalesce(sum(n), 0)::int, min(min), max(max), coalesce(sum(sum), 0)';
const RAW_CHANNEL = (v: string) => `count(${v})::int, min(${v}), max(${v}), coalesce(sum(round(${v} * 1e6)::numeric), 0)`;

interface ChannelBucket {
  point: string;
  channel: string;
  start: number;
  n: number;
  min: number;
  max: number;
  sum: number;
}

function addChannels(into: Map<string, ChannelBucket>, point: string, start: number, channels: Record<string, number>): void {
  for (const channel in channels) {
    const x = channels[channel];
    if (typeof x !== 'number' || !Number.isFinite(x)) continue;
    const key = `${point} ${channel} ${start}`;
    const b = into.get(key);
    if (!b) into.set(key, { point, channel, start, n: 1, min: x, max: x, sum: Math.round(x * 1e6) });
    else {
      b.n++;
      if (x < b.min) b.min = x;
      if (x > b.max) b.max = x;
      b.sum += Math.round(x * 1e6);
    }
  }
}

async function addChannelDeltas(tx: Queryable, rows: ChannelBucket[]): Promise<void> {
  await tx.query(
    `INSERT INTO data_channel_rollup_deltas (${CHANNEL_KEY}, ${CHANNEL_COLUMNS})
       SELECT p, c, ${FINEST}, s, n::int, lo, hi, sm::numeric FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::float8[], $5::float8[], $6::float8[], $7::float8[]) AS u(p, c, s, n, lo, hi, sm)`,
    [
      arrayParam(
        'text',
        rows.map((b) => b.point),
      ),
      arrayParam(
        'text',
        rows.map((b) => b.channel),
      ),
      arrayParam(
        'timestamptz',
        rows.map((b) => b.start),
      ),
      arrayParam(
        'float8',
        rows.map((b) => b.n),
      ),
      arrayParam(
        'float8',
        rows.map((b) => b.min),
      ),
      arrayParam(
        'float8',
        rows.map((b) => b.max),
      ),
      arrayParam(
        'float8',
        rows.map((b) => b.sum),
      ),
    ],
    { prepare: 'md_add_channel_rollups' },
  );
}

/** Moves up to $1 channel delta rows (of point $2) into the hour and day rows holding them. */
const foldChannelsSql = (onePoint: boolean) =>
  `WITH moved AS (DELETE FROM data_channel_rollup_deltas WHERE ctid = ANY (ARRAY(SELECT ctid FROM data_channel_rollup_deltas
                    ${onePoint ? 'WHERE point_id = $2' : ''} LIMIT $1)) RETURNING *),
        folded AS (
          INSERT INTO data_channel_rollups AS r (${CHANNEL_KEY}, ${CHANNEL_COLUMNS})
          SELECT * FROM (${ROLLUP_SECONDS.map((seconds) => `SELECT point_id, channel, ${seconds}, ${bin(String(seconds), 'bucket_start')}, ${MERGED_CHANNEL} FROM moved GROUP BY 1, 2, 3, 4`).join(' UNION ALL ')}) l
           ORDER BY 1, 2, 3, 4
          ON CONFLICT (${CHANNEL_KEY}) DO UPDATE SET n = r.n + excluded.n, min = least(r.min, excluded.min), max = greatest(r.max, excluded.max), sum = r.sum + excluded.sum)
   SELECT count(*)::int AS n FROM moved`;

/**
 * The recount of point $1's channel rows of bucket [$3, $3 + $2 s) at level i, in one statement
 * (one snapshot, as recomputeRollups' own): the finest level drops the bucket's channel deltas and
 * recounts the raw rows, a coarser level sums the level below; a channel no longer present gets
 * n = 0 (deleted after).
 */
function recountChannelsSql(i: number): string {
  const where = 'point_id = $1 AND bucket_seconds = $2 AND bucket_start = $3';
  const recount =
    i === 0
      ? `SELECT c.key AS channel, ${RAW_CHANNEL('c.v')} FROM data_records d
           CROSS JOIN LATERAL (SELECT key, ${channelValue('value')} AS v FROM jsonb_each(d.channels)) c
          WHERE d.point_id = $1 AND d.measured_at >= $3 AND d.measured_at < $3 + make_interval(secs => $2) AND d.quality_flag <> 'invalid' AND d.channels IS NOT NULL
          GROUP BY c.key`
      : `SELECT channel, ${MERGED_CHANNEL} FROM data_channel_rollups
          WHERE point_id = $1 AND bucket_seconds = ${ROLLUP_SECONDS[i - 1]} AND bucket_start >= $3 AND bucket_start < $3 + make_interval(secs => $2)
          GROUP BY channel`;
  return `WITH ${i === 0 ? `dropped AS (DELETE FROM data_channel_rollup_deltas WHERE ${where}),` : ''}
        recount (channel, n, min, max, sum) AS (${recount}),
        emptied AS (UPDATE data_channel_rollups SET n = 0, min = NULL, max = NULL, sum = 0
                     WHERE ${where} AND channel NOT IN (SELECT channel FROM recount WHERE n > 0))
   INSERT INTO data_channel_rollups AS r (${CHANNEL_KEY}, ${CHANNEL_COLUMNS})
   SELECT $1, channel, $2, $3, n, min, max, sum FROM recount WHERE n > 0
   ON CONFLICT (${CHANNEL_KEY}) DO UPDATE SET n = excluded.n, min = excluded.min, max = excluded.max, sum = excluded.sum`;
}

/** The statements that fill an empty `data_channel_rollups` from the raw rows, finest level first. */
export function rebuildChannelStatements(): string[] {
  return ROLLUP_SECONDS.map((seconds, i) =>
    i === 0
      ? `INSERT INTO data_channel_rollups (${CHANNEL_KEY}, ${CHANNEL_COLUMNS})
           SELECT d.point_id, c.key, ${seconds}, ${bin(String(seconds), 'd.measured_at')}, ${RAW_CHANNEL('c.v')}
             FROM data_records d CROSS JOIN LATERAL (SELECT key, ${channelValue('value')} AS v FROM jsonb_each(d.channels)) c
            WHERE d.channels IS NOT NULL AND d.quality_flag <> 'invalid' AND c.v IS NOT NULL GROUP BY 1, 2, 3, 4`
      : `INSERT INTO data_channel_rollups (${CHANNEL_KEY}, ${CHANNEL_COLUMNS})
           SELECT point_id, channel, ${seconds}, ${bin(String(seconds), 'bucket_start')}, ${MERGED_CHANNEL}
             FROM data_channel_rollups WHERE bucket_seconds = ${ROLLUP_SECONDS[i - 1]} GROUP BY 1, 2, 3, 4`,
  );
}
