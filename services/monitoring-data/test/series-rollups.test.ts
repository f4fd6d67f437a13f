import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitUntil } from '@mp/testing';
import { foldPointByPoint, foldRollups, rebuildRollups, ROLLUP_COLUMNS } from '../src/rollups.js';
import { gridForBuckets, plan } from '../src/series-plan.js';
import { columns, startHarness, type Harness, type RecordIn } from './harness.js';

const at = (iso: string) => Date.parse(iso);
const here = dirname(fileURLToPath(import.meta.url));

describe('series resolution: which rollup level serves which request', () => {
  it('reads one range of day rows for a year at 500 buckets, one of hour rows for a month, raw rows only under an hour', () => {
    const year = { from: at('2025-03-07T10:11:12Z'), to: at('2026-03-07T10:11:12Z') };
    const g = gridForBuckets(year.from, year.to, 500);
    // 365 days / 500 = 17.5 h → one day, buckets on UTC days
    expect(g).toEqual({ origin: at('2025-03-07T00:00:00Z'), interval: 86_400 });
    const byTime = (ps: ReturnType<typeof plan>) => [...ps].sort((x, y) => x.lo - y.lo);
    expect(byTime(plan(g, year.from, year.to))).toEqual([
      { seconds: 0, lo: year.from, hi: at('2025-03-07T11:00:00Z') },
      { seconds: 3600, lo: at('2025-03-07T11:00:00Z'), hi: at('2025-03-08T00:00:00Z') },
      { seconds: 86_400, lo: at('2025-03-08T00:00:00Z'), hi: at('2026-03-07T00:00:00Z') },
      { seconds: 3600, lo: at('2026-03-07T00:00:00Z'), hi: at('2026-03-07T10:00:00Z') },
      { seconds: 0, lo: at('2026-03-07T10:00:00Z'), hi: year.to },
    ]);
    const month = { from: at('2026-02-01T00:00:00Z'), to: at('2026-03-03T00:00:00Z') };
    const m = gridForBuckets(month.from, month.to, 500);
    // 30 days / 500 = 86.4 min → 2 h
    expect(m).toEqual({ origin: month.from, interval: 7200 });
    expect(plan(m, month.from, month.to)).toEqual([{ seconds: 3600, lo: month.from, hi: month.to }]);
    const fiveYears = gridForBuckets(at('2021-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z'), 500);
    expect(fiveYears.interval).toBe(4 * 86_400);
    expect(plan(fiveYears, at('2021-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z'))).toEqual([
      { seconds: 86_400, lo: at('2021-01-01T00:00:00Z'), hi: at('2026-01-01T00:00:00Z') },
    ]);
    // a day at 500 buckets: 173 s buckets from `from`, raw rows
    const day = { from: at('2026-02-01T00:00:00Z'), to: at('2026-02-02T00:00:00Z') };
    expect(gridForBuckets(day.from, day.to, 500)).toEqual({ origin: day.from, interval: 173 });
    expect(plan(gridForBuckets(day.from, day.to, 500), day.from, day.to)).toEqual([{ seconds: 0, lo: day.from, hi: day.to }]);
  });

  it('cuts buckets of an explicit interval that are not on whole hours into hours and raw edges', () => {
    const from = at('2026-02-01T00:30:00Z');
    // [00:30, 02:00) and [02:00, 03:30): the half hours from raw rows, the whole hours of both
    // buckets one range of hour rows (each row still lands in its own bucket)
    expect(plan({ origin: from, interval: 5400 }, from, from + 2 * 5400_000)).toEqual([
      { seconds: 0, lo: from, hi: at('2026-02-01T01:00:00Z') },
      { seconds: 3600, lo: at('2026-02-01T01:00:00Z'), hi: at('2026-02-01T03:00:00Z') },
      { seconds: 0, lo: at('2026-02-01T03:00:00Z'), hi: at('2026-02-01T03:30:00Z') },
    ]);
  });
});

const COLS = ROLLUP_COLUMNS.join(', ');

/** A deterministic stream of readings (no Math.random: a failure must be repeatable). */
function readings(pointIds: string[], start: number, n: number, stepMs: number, seed: number): RecordIn[] {
  let x = seed;
  const next = () => (x = (x * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  return Array.from({ length: n }, (_, i) => {
    const dz = Math.round((next() * 30 - 15) * 1000) / 1000; // some over 10 (warning) and 20 mm (alarm) never: |dz| < 15
    const values = i % 7 === 3 ? { dz } : { dx: Math.round((next() * 8 - 4) * 1000) / 1000, dy: Math.round((next() * 8 - 4) * 1000) / 1000, dz };
    return { point_id: pointIds[i % pointIds.length]!, measured_at: new Date(start + i * stepMs + (i % 5) * 1_017).toISOString(), values };
  });
}

interface Stat {
  min: number;
  avg: number;
  max: number;
}
type Bucket = { start: string; count: number; dx?: Stat; dy?: Stat; dz?: Stat };

describe.each([
  ['PostgreSQL', false],
  ['PGlite (the embedded default)', true],
])('series from rollups on %s', (_name, embedded) => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['project']>>;
  let a: string, b: string;
  const write = (records: RecordIn[]) => h.data.writeRecords({ projectId: p.id, records: columns(records) }, h.caller);
  const rowsOf = async <R>(sql: string, params: unknown[] = []) => (await h.dataDb.query<R>(sql, params)).rows;

  /** The series as the raw rows give it: the aggregate series used to run on every request. */
  async function fromRawRows(pointId: string, from: number, to: number, origin: number, interval: number): Promise<Bucket[]> {
    const rows = await rowsOf<Record<string, number | string | null>>(
      `SELECT date_bin(make_interval(secs => $4), measured_at, $5::timestamptz) AS start, count(*)::int AS count,
              min(dx) AS dx_min, round(avg(dx::numeric), 6)::float8 AS dx_avg, max(dx) AS dx_max, min(dy) AS dy_min, round(avg(dy::numeric), 6)::float8 AS dy_avg, max(dy) AS dy_max,
              min(dz) AS dz_min, round(avg(dz::numeric), 6)::float8 AS dz_avg, max(dz) AS dz_max
         FROM data_records WHERE point_id = $1 AND measured_at >= $2 AND measured_at < $3 AND quality_flag <> 'invalid'
        GROUP BY 1 ORDER BY 1`,
      [pointId, new Date(from).toISOString(), new Date(to).toISOString(), interval, new Date(origin).toISOString()],
    );
    const stat = (r: Record<string, unknown>, k: string) =>
      r[`${k}_min`] === null ? {} : { [k]: { min: Number(r[`${k}_min`]), avg: Number(r[`${k}_avg`]), max: Number(r[`${k}_max`]) } };
    return rows.map((r) => ({
      start: new Date(r.start as string).toISOString(),
      count: r.count as number,
      ...stat(r, 'dx'),
      ...stat(r, 'dy'),
      ...stat(r, 'dz'),
    }));
  }

  /** Requests of every kind: bucket counts (hour, day grids and raw), explicit intervals on and off whole hours. */
  const REQUESTS: { from: string; to: string; buckets?: number; intervalSeconds?: number }[] = [
    { from: '2026-05-01T00:00:00Z', to: '2026-05-06T00:00:00Z', buckets: 500 },
    { from: '2026-04-30T07:13:00Z', to: '2026-05-05T19:00:00Z', buckets: 30 },
    { from: '2026-04-28T05:00:00Z', to: '2026-05-09T00:00:00Z', buckets: 4 },
    { from: '2026-05-01T00:17:31.250Z', to: '2026-05-04T03:00:00Z', intervalSeconds: 3600 },
    { from: '2026-05-01T00:00:00Z', to: '2026-05-05T00:00:00Z', intervalSeconds: 5400 },
    { from: '2026-04-30T13:00:00Z', to: '2026-05-06T00:00:00Z', intervalSeconds: 2 * 86_400 },
    { from: '2026-05-02T10:20:00Z', to: '2026-05-02T13:40:00Z', intervalSeconds: 700 },
  ];

  async function expectSeriesEqualRawRows(pointId: string) {
    for (const q of REQUESTS) {
      const series = await h.data.getSeries({ pointId, ...q }, h.caller);
      const from = at(q.from),
        to = at(q.to);
      const grid = q.intervalSeconds ? { origin: from, interval: q.intervalSeconds } : gridForBuckets(from, to, q.buckets!);
      expect(series.intervalSeconds).toBe(grid.interval);
      const expected = await fromRawRows(pointId, from, to, grid.origin, grid.interval);
      expect(expected.length).toBeGreaterThan(0);
      expect({ q, buckets: series.buckets }).toEqual({ q, buckets: expected });
    }
  }

  /** Each bucket's rollup: its folded row and the hour deltas in it (of its hour, or of its day's hours) merged. */
  const rollups = () =>
    rowsOf(
      `SELECT point_id, bucket_seconds, bucket_start, sum(count)::int AS count, ${['dx', 'dy', 'dz'].map((a) => `sum(${a}_n)::int AS ${a}_n, min(${a}_min) AS ${a}_min, max(${a}_max) AS ${a}_max, sum(${a}_sum) AS ${a}_sum`).join(', ')},
              sum(warning_count)::int AS warning_count, sum(alarm_count)::int AS alarm_count
         FROM (SELECT * FROM data_rollups UNION ALL SELECT * FROM data_rollup_deltas
               UNION ALL SELECT point_id, 86400, date_bin('1 day', bucket_start, timestamptz '1970-01-01Z'), ${COLS} FROM data_rollup_deltas) r
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
  const deltas = async () => (await rowsOf<{ n: number }>('SELECT count(*)::int AS n FROM data_rollup_deltas'))[0]!.n;

  beforeAll(async () => {
    h = await startHarness({ embedded, rollupFoldMs: 0 });
    p = await h.project({ points: [{ number: 'A' }, { number: 'B' }] });
    [a, b] = p.points.map((x) => x.id) as [string, string];
  });
  afterAll(() => h?.stop());

  it('keeps series equal to the raw rows after writes, a batch, corrections and deletions', async () => {
    // five days of two points, every ~7 minutes, in synchronous writes of 400…
    const synced = readings([a, b], at('2026-05-01T00:00:00Z'), 2000, 211_000, 7);
    for (let i = 0; i < synced.length; i += 400) await write(synced.slice(i, i + 400));
    // …and a batch interleaved with them (other instants, the same buckets)
    const batched = readings([a, b], at('2026-05-01T00:01:30.500Z'), 1500, 283_000, 11);
    const created = await h.data.createBatch({ projectId: p.id, records: columns(batched) }, h.caller);
    const done = await waitUntil(async () => {
      const batch = await h.data.getBatch({ id: created.id, errorsPage: undefined }, h.caller);
      return batch.status === 'completed' ? batch : null;
    });
    expect(done.acceptedCount).toBe(1500);
    const statuses = await rowsOf<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM data_records GROUP BY 1 ORDER BY 1`);
    expect(statuses.map((s) => s.status)).toEqual(['normal', 'warning']);
    await expectSeriesEqualRawRows(a);
    // folded or not, a bucket holds the same
    const unfolded = await rollups();
    await foldRollups(h.dataDb);
    expect(await deltas()).toBe(0);
    expect(await rollups()).toEqual(unfolded);
    // more records into the same buckets: the corrections below meet folded rows and deltas
    await write(readings([a, b], at('2026-05-01T00:03:10.900Z'), 600, 601_000, 13));
    expect(await deltas()).toBeGreaterThan(0);

    // Corrections and deletions of the records holding a bucket's extremes: the minimum of an
    // hour moved up, the maximum of a day marked invalid, an invalid record made valid again,
    // and every record of one hour deleted.
    const extreme = async (order: 'ASC' | 'DESC', from: string, to: string) =>
      (
        await rowsOf<{ id: string }>(
          `SELECT id FROM data_records WHERE point_id = $1 AND measured_at >= $2 AND measured_at < $3 AND quality_flag <> 'invalid' ORDER BY dz ${order} LIMIT 1`,
          [a, from, to],
        )
      )[0]!.id;
    const minOfHour = await extreme('ASC', '2026-05-02T10:00:00Z', '2026-05-02T11:00:00Z');
    await h.data.updateRecord({ id: minOfHour, values: { dx: 0.5, dy: 0.25, dz: 14.75 }, clear: [] }, h.caller);
    const maxOfDay = await extreme('DESC', '2026-05-03T00:00:00Z', '2026-05-04T00:00:00Z');
    await h.data.updateRecord({ id: maxOfDay, qualityFlag: 'invalid', clear: [] }, h.caller);
    const flipped = await extreme('ASC', '2026-05-01T05:00:00Z', '2026-05-01T06:00:00Z');
    await h.data.updateRecord({ id: flipped, qualityFlag: 'invalid', clear: [] }, h.caller);
    await h.data.updateRecord({ id: flipped, qualityFlag: 'suspect', clear: [] }, h.caller);
    await h.data.deleteRecord({ id: await extreme('DESC', '2026-05-04T12:00:00Z', '2026-05-04T13:00:00Z') }, h.caller);
    const hourToEmpty = await rowsOf<{ id: string }>(
      `SELECT id FROM data_records WHERE point_id = $1 AND measured_at >= '2026-05-02T13:00:00Z' AND measured_at < '2026-05-02T14:00:00Z'`,
      [a],
    );
    expect(hourToEmpty.length).toBeGreaterThan(5);
    for (const r of hourToEmpty) await h.data.deleteRecord({ id: r.id }, h.caller);
    // a remark alone changes nothing a series shows
    await h.data.updateRecord({ id: maxOfDay, remark: 'prism fogged', clear: [] }, h.caller);

    await expectSeriesEqualRawRows(a);
    await expectSeriesEqualRawRows(b);
    const hour = await h.data.getSeries({ pointId: a, from: '2026-05-02T12:00:00Z', to: '2026-05-02T15:00:00Z', intervalSeconds: 3600 }, h.caller);
    expect(hour.buckets.map((k) => k.start)).toEqual(['2026-05-02T12:00:00.000Z', '2026-05-02T14:00:00.000Z']);
    // no rollup row is left for the emptied hour, and what was kept step by step is what a rebuild computes
    expect(await rowsOf(`SELECT 1 FROM data_rollups WHERE point_id = $1 AND bucket_start = '2026-05-02T13:00:00Z'`, [a])).toEqual([]);
    expect(await rowsOf(`SELECT 1 FROM data_rollup_deltas WHERE point_id = $1 AND bucket_start = '2026-05-02T13:00:00Z'`, [a])).toEqual([]);
    const kept = await rollups();
    expect(kept.length).toBeGreaterThan(200);
    await rebuildRollups(h.dataDb);
    expect(await rollups()).toEqual(kept);
  });

  it('stays exact when writes, corrections, deletions and folding of the same hours run at once', async () => {
    const hour = at('2026-06-01T10:00:00Z');
    await write(readings([a], hour, 240, 29_000, 17)); // two hours of one point
    const ids = (
      await rowsOf<{ id: string }>(`SELECT id FROM data_records WHERE point_id = $1 AND measured_at >= $2 ORDER BY measured_at`, [
        a,
        new Date(hour).toISOString(),
      ])
    ).map((r) => r.id);
    for (let round = 0; round < 12; round++) {
      await Promise.all([
        write(readings([a], hour + 7_300 + round * 503, 40, 173_000, 100 + round)),
        h.data.deleteRecord({ id: ids[round * 2]! }, h.caller),
        h.data.updateRecord({ id: ids[round * 2 + 1]!, values: { dx: 1, dy: 1, dz: -14.5 + round }, clear: [] }, h.caller),
        h.data.updateRecord({ id: ids[200 - round]!, qualityFlag: round % 2 ? 'invalid' : 'suspect', clear: [] }, h.caller),
        foldRollups(h.dataDb),
      ]);
    }
    const q = { pointId: a, from: '2026-06-01T00:00:00Z', to: '2026-06-02T00:00:00Z' };
    for (const interval of [3600, 86_400]) {
      const series = await h.data.getSeries({ ...q, intervalSeconds: interval }, h.caller);
      expect(series.buckets).toEqual(await fromRawRows(a, at(q.from), at(q.to), at(q.from), interval));
    }
    const kept = await rollups();
    await rebuildRollups(h.dataDb);
    expect(await rollups()).toEqual(kept);
  });

  it('folds every other point when one point has deltas that cannot be folded, setting those aside', async () => {
    const q = await h.project({ points: [{ number: 'BAD' }, { number: 'GOOD' }] });
    const [bad, good] = q.points.map((x) => x.id) as [string, string];
    const writeQ = (records: RecordIn[]) => h.data.writeRecords({ projectId: q.id, records: columns(records) }, h.caller);
    // Two deltas whose micrometre sums overflow a 64-bit integer together (values stored before
    // displacements were bounded at the door): folding them in one statement fails.
    for (const sum of ['5000000000000000000', '5000000000000000000'])
      await rowsOf(
        `INSERT INTO data_rollup_deltas (point_id, bucket_seconds, bucket_start, ${COLS})
         VALUES ($1, 3600, '2026-06-01T00:00:00Z', 1, 0, NULL, NULL, 0, 0, NULL, NULL, 0, 1, 5e12, 5e12, $2::int8, 0, 0)`,
        [bad, sum],
      );
    await writeQ([{ point_id: good, measured_at: '2026-06-01T00:10:00Z', values: { dx: 1, dy: 2, dz: 3 } }]);
    await expect(foldRollups(h.dataDb)).rejects.toThrow(/out of range/);
    const { folded, rejected } = await foldPointByPoint(h.dataDb);
    expect(folded).toBeGreaterThanOrEqual(1);
    expect(rejected.map((r) => r.pointId)).toEqual([bad]);
    expect(await rowsOf('SELECT point_id, count(*)::int AS n FROM data_rollup_rejects GROUP BY 1')).toEqual([{ point_id: bad, n: 2 }]);
    expect(await rowsOf('SELECT point_id FROM data_rollup_deltas WHERE point_id IN ($1, $2)', [bad, good])).toEqual([]);
    expect(await rowsOf('SELECT count, dz_sum::text AS dz_sum FROM data_rollups WHERE point_id = $1 AND bucket_seconds = 3600', [good])).toEqual([
      { count: 1, dz_sum: '3000000' },
    ]);
    // and a plain round folds again
    await writeQ([{ point_id: good, measured_at: '2026-06-01T00:20:00Z', values: { dx: 1, dy: 2, dz: 3 } }]);
    expect((await foldRollups(h.dataDb)).folded).toBeGreaterThanOrEqual(1);
  });

  it('answers from the rollups (raw rows only under an hour), and the rebuild command restores them', async () => {
    const q = { pointId: a, from: '2026-05-01T00:00:00Z', to: '2026-05-06T00:00:00Z' };
    const byDay = await h.data.getSeries({ ...q, intervalSeconds: 86_400 }, h.caller);
    const raw = await h.data.getSeries({ ...q, intervalSeconds: 1800 }, h.caller);
    expect(byDay.buckets).toHaveLength(5);
    // the rollups dropped behind the service's back: whole-day buckets are empty, raw ones are not
    await h.dataDb.query('DELETE FROM data_rollups');
    await h.dataDb.query('DELETE FROM data_rollup_deltas');
    expect((await h.data.getSeries({ ...q, intervalSeconds: 86_400 }, h.caller)).buckets).toEqual([]);
    expect((await h.data.getSeries({ ...q, intervalSeconds: 1800 }, h.caller)).buckets).toEqual(raw.buckets);
    if (embedded) await rebuildRollups(h.dataDb);
    else {
      // `npm run rollups:rebuild` runs this file with the service's settings
      const script = join(here, '../dist/rebuild-rollups.js');
      const { stdout } = await promisify(execFile)(process.execPath, [script], { env: { ...process.env, MP_DATABASE_URL: h.db.url, MP_LOG_LEVEL: 'info' } });
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ msg: 'rollups rebuilt', rows: expect.any(Number) });
    }
    expect((await h.data.getSeries({ ...q, intervalSeconds: 86_400 }, h.caller)).buckets).toEqual(byDay.buckets);
  });
});
