import { DomainError } from '@mp/errors';
import { rebuildRollups, foldRollups } from '../src/rollups.js';
import { gridForBuckets } from '../src/series-plan.js';
import { columns, startHarness, type Harness, type RecordIn } from './harness.js';

const at = (iso: string) => Date.parse(iso);

/** A deterministic stream of piezometer readings (no Math.random: a failure must be repeatable). */
function piezometerReadings(pointId: string, start: number, n: number, stepMs: number): RecordIn[] {
  let x = 7;
  const next = () => (x = (x * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  return Array.from({ length: n }, (_, i) => ({
    point_id: pointId,
    measured_at: new Date(start + i * stepMs + (i % 5) * 1_017).toISOString(),
    values: {},
    channels: {
      pore_pressure: Math.round((120 + next() * 60) * 1000) / 1000,
      frequency: Math.round((2400 + next() * 300) * 100) / 100,
      temperature: Math.round((8 + next() * 4) * 100) / 100,
    },
  }));
}

type Bucket = { start: string; count: number; value?: { min: number; avg: number; max: number } };

// Series of one channel (docs/instruments.md#series-per-channel, ADR 0118): the primary channel of
// an instrument point by default, with its unit, from the channel rollups, which agree with the
// aggregate of the raw rows before and after folding, after corrections and after a rebuild.
describe.each([
  ['PostgreSQL', false],
  ['PGlite (the embedded default)', true],
])('series per channel on %s', (_name, embedded) => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['project']>>;
  let piezometer: string;
  let prism: string;
  const write = (records: RecordIn[]) => h.data.writeRecords({ projectId: p.id, records: columns(records) }, h.caller);
  const rowsOf = async <R>(sql: string, params: unknown[] = []) => (await h.dataDb.query<R>(sql, params)).rows;

  beforeAll(async () => {
    h = await startHarness({ rollupFoldMs: 0, embedded });
    p = await h.project({
      name: 'Dam piezometers',
      points: [
        { number: 'PZ-1', name: 'Piezometer PZ-1', sensorType: 'piezometer', warningThreshold: 0, alarmThreshold: 0 },
        { number: 'P-1', name: 'Crest prism P-1' },
      ],
    });
    piezometer = p.points[0]!.id;
    prism = p.points[1]!.id;
    // four days every 20 minutes, written in a few writes (several deltas per hour)
    const recs = piezometerReadings(piezometer, at('2026-05-01T00:00:00Z'), 4 * 72, 20 * 60_000);
    for (let i = 0; i < recs.length; i += 50) expect((await write(recs.slice(i, i + 50))).totalCount).toBe(Math.min(50, recs.length - i));
    await write([
      { point_id: prism, measured_at: '2026-05-01T10:00:00Z', values: { dx: 1, dy: 2, dz: -3 } },
      { point_id: prism, measured_at: '2026-05-01T10:30:00Z', values: { dx: 2, dy: 2, dz: -5 } },
    ]);
  });
  afterAll(() => h?.stop());

  /** The channel's series as the raw rows give it. */
  async function fromRawRows(channel: string, from: number, to: number, origin: number, interval: number): Promise<Bucket[]> {
    const rows = await rowsOf<{ start: string; count: number; min: number; avg: number; max: number }>(
      `SELECT date_bin(make_interval(secs => $4), measured_at, $5::timestamptz) AS start, count(*)::int AS count,
              min((channels ->> $6)::float8) AS min, round(avg((channels ->> $6)::numeric), 6)::float8 AS avg, max((channels ->> $6)::float8) AS max
         FROM data_records WHERE point_id = $1 AND measured_at >= $2 AND measured_at < $3 AND quality_flag <> 'invalid' AND channels ? $6
        GROUP BY 1 ORDER BY 1`,
      [piezometer, new Date(from).toISOString(), new Date(to).toISOString(), interval, new Date(origin).toISOString(), channel],
    );
    return rows.map((r) => ({ start: new Date(r.start).toISOString(), count: r.count, value: { min: r.min, avg: r.avg, max: r.max } }));
  }

  const REQUESTS: { from: string; to: string; buckets?: number; intervalSeconds?: number }[] = [
    { from: '2026-05-01T00:00:00Z', to: '2026-05-05T00:00:00Z', buckets: 500 },
    { from: '2026-04-30T07:13:00Z', to: '2026-05-04T19:00:00Z', buckets: 30 },
    { from: '2026-04-28T05:00:00Z', to: '2026-05-09T00:00:00Z', buckets: 4 },
    { from: '2026-05-01T00:17:31.250Z', to: '2026-05-04T03:00:00Z', intervalSeconds: 3600 },
    { from: '2026-05-01T00:00:00Z', to: '2026-05-04T00:00:00Z', intervalSeconds: 5400 },
    { from: '2026-05-02T10:20:00Z', to: '2026-05-02T13:40:00Z', intervalSeconds: 700 },
  ];

  async function expectChannelSeriesEqualRawRows(channel: string | undefined, everyRequestHasRows = true) {
    for (const q of REQUESTS) {
      const series = await h.data.getSeries({ pointId: piezometer, ...q, ...(channel ? { channel } : {}) }, h.caller);
      const from = at(q.from),
        to = at(q.to);
      const grid = q.intervalSeconds ? { origin: from, interval: q.intervalSeconds } : gridForBuckets(from, to, q.buckets!);
      expect(series.intervalSeconds).toBe(grid.interval);
      const expected = await fromRawRows(channel ?? 'pore_pressure', from, to, grid.origin, grid.interval);
      if (everyRequestHasRows) expect(expected.length).toBeGreaterThan(0);
      const got = series.buckets.map((b) => ({ start: b.start, count: b.count, value: b.value }));
      expect({ q, buckets: got }).toEqual({ q, buckets: expected });
    }
  }

  it("serves an instrument point's primary channel by default, named with its unit, from the deltas and from the folded rows alike", async () => {
    const s = await h.data.getSeries({ pointId: piezometer, from: '2026-05-01T00:00:00Z', to: '2026-05-05T00:00:00Z', buckets: 4 }, h.caller);
    expect(s).toMatchObject({ channel: 'pore_pressure', unit: 'kPa', intervalSeconds: 86_400 });
    expect(s.buckets.map((b) => b.count)).toEqual([72, 72, 72, 72]);
    for (const b of s.buckets) {
      expect(b.value!.min).toBeGreaterThanOrEqual(120);
      expect(b.value!.max).toBeLessThanOrEqual(180);
      expect(b.dz).toBeUndefined();
    }
    // before folding: every rolled-up hour is still deltas
    expect((await rowsOf<{ n: number }>('SELECT count(*)::int AS n FROM data_channel_rollup_deltas WHERE point_id = $1', [piezometer]))[0]!.n).toBeGreaterThan(
      0,
    );
    await expectChannelSeriesEqualRawRows(undefined);
    const { foldedChannels } = await foldRollups(h.dataDb);
    expect(foldedChannels).toBeGreaterThan(0);
    expect((await rowsOf<{ n: number }>('SELECT count(*)::int AS n FROM data_channel_rollup_deltas'))[0]!.n).toBe(0);
    // hour rows of three channels over four days, and day rows
    const levels = await rowsOf<{ bucket_seconds: number; n: number }>(
      `SELECT bucket_seconds, count(*)::int AS n FROM data_channel_rollups WHERE point_id = $1 GROUP BY 1 ORDER BY 1`,
      [piezometer],
    );
    expect(levels).toEqual([
      { bucket_seconds: 3600, n: 3 * 96 },
      { bucket_seconds: 86_400, n: 3 * 4 },
    ]);
    await expectChannelSeriesEqualRawRows(undefined);
    await expectChannelSeriesEqualRawRows('temperature');
    const t = await h.data.getSeries(
      { pointId: piezometer, from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z', buckets: 1, channel: 'frequency' },
      h.caller,
    );
    expect(t).toMatchObject({ channel: 'frequency', unit: 'Hz' });
  });

  it('recounts a channel after a correction, an invalidation and a deletion, and rebuilds to the same rows', async () => {
    const [hi] = await rowsOf<{ id: string }>(
      `SELECT id FROM data_records WHERE point_id = $1 AND measured_at >= '2026-05-02T05:00:00Z' AND measured_at < '2026-05-02T06:00:00Z'
        ORDER BY (channels ->> 'pore_pressure')::float8 DESC LIMIT 1`,
      [piezometer],
    );
    await h.data.updateRecord({ id: hi!.id, values: { channels: { values: { pore_pressure: 999.5, frequency: 2500, temperature: 9 } } }, clear: [] }, h.caller);
    const [other] = await rowsOf<{ id: string }>(
      `SELECT id FROM data_records WHERE point_id = $1 AND measured_at >= '2026-05-03T07:00:00Z' ORDER BY measured_at LIMIT 2`,
      [piezometer],
    );
    await h.data.updateRecord({ id: other!.id, qualityFlag: 'invalid', clear: [] }, h.caller);
    const [gone] = await rowsOf<{ id: string }>(
      `SELECT id FROM data_records WHERE point_id = $1 AND measured_at >= '2026-05-04T01:00:00Z' ORDER BY measured_at LIMIT 1`,
      [piezometer],
    );
    await h.data.deleteRecord({ id: gone!.id }, h.caller);
    const day = await h.data.getSeries({ pointId: piezometer, from: '2026-05-02T00:00:00Z', to: '2026-05-03T00:00:00Z', buckets: 1 }, h.caller);
    expect(day.buckets[0]!.value!.max).toBe(999.5);
    await expectChannelSeriesEqualRawRows(undefined);
    await expectChannelSeriesEqualRawRows('frequency');
    const before = await rowsOf(`SELECT point_id, channel, bucket_seconds, bucket_start, n, min, max, sum::text FROM data_channel_rollups ORDER BY 1, 2, 3, 4`);
    await rebuildRollups(h.dataDb);
    expect(
      await rowsOf(`SELECT point_id, channel, bucket_seconds, bucket_start, n, min, max, sum::text FROM data_channel_rollups ORDER BY 1, 2, 3, 4`),
    ).toEqual(before);
  });

  it('tolerates a key of the channels jsonb outside the type (a derived channel), without a unit', async () => {
    await h.dataDb.query(
      `UPDATE data_records SET channels = channels || jsonb_build_object('head', round(((channels ->> 'pore_pressure')::float8 / 9.81)::numeric, 3))
        WHERE point_id = $1 AND measured_at < '2026-05-02T00:00:00Z'`,
      [piezometer],
    );
    await rebuildRollups(h.dataDb);
    const s = await h.data.getSeries({ pointId: piezometer, from: '2026-05-01T00:00:00Z', to: '2026-05-03T00:00:00Z', buckets: 2, channel: 'head' }, h.caller);
    expect(s).toMatchObject({ channel: 'head', unit: '' });
    expect(s.buckets.map((b) => b.count)).toEqual([72]);
    // head is in the first day only: some requests hold none of it
    await expectChannelSeriesEqualRawRows('head', false);
  });

  it('refuses a channel the point does not have with 400001 naming channel and listing the channels', async () => {
    const err = await h.data.getSeries({ pointId: piezometer, channel: 'dz' }, h.caller).catch((e: DomainError) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: '400001', field: 'channel' });
    expect((err as DomainError).suggestion).toContain('pore_pressure, frequency, temperature');
    const geodetic = await h.data.getSeries({ pointId: prism, channel: 'x' }, h.caller).catch((e: DomainError) => e);
    expect(geodetic).toMatchObject({ code: '400001', field: 'channel' });
    expect((geodetic as DomainError).suggestion).toContain('dx, dy, dz');
  });

  it('keeps a total station without channel as it was (dx, dy, dz per bucket), and serves one displacement by name in mm', async () => {
    const s = await h.data.getSeries({ pointId: prism, from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z', buckets: 1 }, h.caller);
    expect(s.channel).toBeUndefined();
    expect(s.unit).toBeUndefined();
    expect(s.buckets).toEqual([
      { start: '2026-05-01T00:00:00.000Z', count: 2, dx: { min: 1, avg: 1.5, max: 2 }, dy: { min: 2, avg: 2, max: 2 }, dz: { min: -5, avg: -4, max: -3 } },
    ]);
    const dz = await h.data.getSeries({ pointId: prism, from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z', buckets: 1, channel: 'dz' }, h.caller);
    expect(dz).toMatchObject({ channel: 'dz', unit: 'mm' });
    expect(dz.buckets).toEqual([{ start: '2026-05-01T00:00:00.000Z', count: 2, value: { min: -5, avg: -4, max: -3 } }]);
  });
});
