import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Database, Queryable } from '@mp/db';
import { createLogger, processRegistry, type Logger } from '@mp/kit';
import { archiveOnce, ARCHIVE_COLUMNS } from '../src/archive.js';
import { foldRollups } from '../src/rollups.js';
import { plan } from '../src/series-plan.js';
import { columns, startHarness, type Harness, type RecordIn } from './harness.js';

const at = (iso: string) => Date.parse(iso);
const clock = { now: () => new Date('2026-11-27T12:00:00Z') };

/** Every `stepMin` minutes from `start`, `n` readings of one point. */
function readings(pointId: string, start: string, n: number, stepMin: number): RecordIn[] {
  return Array.from({ length: n }, (_, i) => ({
    point_id: pointId,
    measured_at: new Date(at(start) + i * stepMin * 60_000).toISOString(),
    values: { dx: (i % 9) - 4 + 0.125, ...(i % 2 ? {} : { dz: -1.5 }) },
  }));
}

function parseCsv(text: string): (string | null)[][] {
  // archive files quote only cells with a comma, quote or newline, and the empty string
  return text
    .trimEnd()
    .split('\n')
    .map((line) => line.split(',').map((c) => (c === '' ? null : c === '""' ? '' : c)));
}

describe('series plan over archived months', () => {
  it('reads the whole hours around bucket edges before the raw horizon, each hour once', () => {
    const from = at('2026-02-10T00:30:00Z');
    const to = at('2026-02-10T05:30:00Z');
    const rawBefore = at('2026-03-01T00:00:00Z');
    expect(plan({ origin: from, interval: 600 }, from, to, rawBefore)).toEqual([
      { seconds: 3600, lo: at('2026-02-10T00:00:00Z'), hi: at('2026-02-10T06:00:00Z') },
    ]);
    // across the horizon: hours before it, raw rows after it
    const edge = { from: at('2026-02-28T23:30:00Z'), to: at('2026-03-01T00:20:00Z') };
    expect(plan({ origin: edge.from, interval: 600 }, edge.from, edge.to, rawBefore)).toEqual([
      { seconds: 3600, lo: at('2026-02-28T23:00:00Z'), hi: rawBefore },
      { seconds: 0, lo: rawBefore, hi: edge.to },
    ]);
    // without a horizon, as before
    expect(plan({ origin: from, interval: 600 }, from, to)).toEqual([{ seconds: 0, lo: from, hi: to }]);
  });
});

describe.each([
  ['PostgreSQL', false],
  ['PGlite (the embedded default)', true],
])('archive of raw readings past retention on %s', (_name, embedded) => {
  let h: Harness;
  let dir: string;
  let logged: { level: string; msg: string; obj: Record<string, unknown> }[];
  let logger: Logger;

  beforeAll(async () => {
    h = await startHarness({ embedded, rollupFoldMs: 0 });
    const base = createLogger('test', 'warn');
    logged = [];
    const capture =
      (level: string) =>
      (obj: Record<string, unknown> | string, msg?: string): void => {
        logged.push(typeof obj === 'string' ? { level, msg: obj, obj: {} } : { level, msg: msg ?? '', obj });
      };
    logger = { ...base, info: capture('info'), warn: capture('warn'), error: capture('error') } as unknown as Logger;
  });
  afterAll(() => h?.stop());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mp-archive-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes an old month of a tenant keeping 1 month to a gzip CSV, drops it, and serves its series from rollups', async () => {
    const p = await h.project({ points: [{ number: 'A' }] });
    const point = p.points[0]!.id;
    const old = readings(point, '2026-02-10T00:07:00Z', 300, 13);
    const recent = readings(point, '2026-11-02T00:00:00Z', 50, 60);
    for (const batch of [old, recent]) await h.data.writeRecords({ projectId: p.id, records: columns(batch) }, h.caller);
    await foldRollups(h.dataDb);
    const seriesReq = { pointId: point, from: '2026-02-10T00:00:00Z', to: '2026-02-13T00:00:00Z', intervalSeconds: 3600 };
    const before = await h.data.getSeries(seriesReq, h.caller);
    expect(before.buckets.reduce((s, b) => s + b.count, 0)).toBe(300);
    const oldRows = (await h.dataDb.query<Record<string, unknown>>(`SELECT id FROM data_records WHERE measured_at < '2026-03-01' ORDER BY id`)).rows;
    expect(oldRows).toHaveLength(300);

    // a failure half-way (the archive folder cannot be written) removes nothing and says so
    // a failure half-way: another tenant's month is written to its file, then this tenant's file
    // cannot be created (its temporary name is taken). Nothing is removed, no file is left under a
    // final name, and the run says so.
    await h.dataDb.query(
      `INSERT INTO data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, dx, status, created_at, updated_at)
       VALUES ('rec_first', 'ten_aaaaaaaaaaaaaaaaaaaa', 'live', 'prj_first', 'pnt_first', '2026-02-07T00:00:00Z', 0, 1, 'normal', now(), now())`,
    );
    await h.dataDb.query(
      `INSERT INTO data_points (point_id, project_id, tenant_id, environment) VALUES ('pnt_first', 'prj_first', 'ten_aaaaaaaaaaaaaaaaaaaa', 'live')`,
    );
    const month = join(dir, 'data_records', '2026-02');
    await mkdir(month, { recursive: true });
    await writeFile(join(month, `.${h.caller.tenantId}.20261127T120000Z.csv.gz.partial`), 'taken');
    logged.length = 0;
    const both = new Map([
      [h.caller.tenantId, 1],
      ['ten_aaaaaaaaaaaaaaaaaaaa', 1],
    ]);
    await expect(archiveOnce({ db: h.dataDb, logger, clock, dir, retention: async () => both })).rejects.toThrow(/EEXIST/);
    expect(logged.some((l) => l.level === 'error' && /archive run failed/.test(l.msg))).toBe(true);
    expect(await readdir(month)).toEqual([`.${h.caller.tenantId}.20261127T120000Z.csv.gz.partial`]);
    expect((await h.dataDb.query(`SELECT 1 FROM data_records WHERE measured_at < '2026-03-01'`)).rows.length).toBe(301);
    expect((await h.dataDb.query('SELECT 1 FROM raw_archives')).rows.length).toBe(0);
    await h.dataDb.query(`DELETE FROM data_records WHERE id = 'rec_first'`);
    await rm(join(month, `.${h.caller.tenantId}.20261127T120000Z.csv.gz.partial`));

    // a tenant without retention keeps everything
    const none = await archiveOnce({ db: h.dataDb, logger, clock, dir, retention: async () => new Map([['ten_other', 1]]) });
    expect(none).toMatchObject({ ran: true, rows: 0, partitions: 0 });
    expect((await h.dataDb.query(`SELECT 1 FROM data_records WHERE measured_at < '2026-03-01'`)).rows.length).toBe(300);

    const metric = async (name: string) => (await processRegistry.getSingleMetric(name)!.get()).values.reduce((s, v) => s + v.value, 0);
    const [rowsBefore, partitionsBefore, bytesBefore] = [
      await metric('mp_archive_rows_total'),
      await metric('mp_archive_partitions_total'),
      await metric('mp_archive_bytes_total'),
    ];
    const done = await archiveOnce({ db: h.dataDb, logger, clock, dir, retention: async () => new Map([[h.caller.tenantId, 1]]) });
    expect(done).toMatchObject({ ran: true, partitions: 1, tenantMonths: 1, rows: 300 });
    expect(await metric('mp_archive_rows_total')).toBe(rowsBefore + 300);
    expect(await metric('mp_archive_partitions_total')).toBe(partitionsBefore + 1);
    expect(await metric('mp_archive_bytes_total')).toBe(bytesBefore + done.bytes);
    expect(await metric('mp_archive_last_success_timestamp_seconds')).toBe(clock.now().getTime() / 1000);
    expect(done.files).toEqual([join(dir, 'data_records', '2026-02', `${h.caller.tenantId}.20261127T120000Z.csv.gz`)]);
    expect(await readdir(join(dir, 'data_records', '2026-02'))).toEqual([`${h.caller.tenantId}.20261127T120000Z.csv.gz`]);
    const gz = await readFile(done.files[0]!);
    expect(done.bytes).toBe(gz.length);
    const [header, ...lines] = parseCsv(gunzipSync(gz).toString('utf8'));
    expect(header).toEqual([...ARCHIVE_COLUMNS]);
    expect(lines.map((l) => l[0]).sort()).toEqual(oldRows.map((r) => r.id).sort());
    const col = (name: string) => ARCHIVE_COLUMNS.indexOf(name as (typeof ARCHIVE_COLUMNS)[number]);
    const byTime = new Map(lines.map((l) => [l[col('measured_at')], l]));
    for (const r of old) {
      const line = byTime.get(new Date(r.measured_at).toISOString().replace('Z', '000Z'))!;
      expect(line[col('point_id')]).toBe(point);
      expect(Number(line[col('dx')])).toBe(r.values.dx);
      expect(line[col('dz')] === null ? null : Number(line[col('dz')])).toBe(r.values.dz ?? null);
    }

    // the partition is gone, the newer month untouched
    expect((await h.dataDb.query(`SELECT to_regclass('data_records_p202602') IS NULL AS gone`)).rows[0]).toEqual({ gone: true });
    expect((await h.dataDb.query(`SELECT 1 FROM data_records`)).rows.length).toBe(50);
    expect((await h.dataDb.query('SELECT month::text, rows::int, partition_dropped FROM raw_archives')).rows).toEqual([
      { month: '2026-02-01', rows: 300, partition_dropped: true },
    ]);
    expect(logged.some((l) => l.msg === 'partition archived and dropped' && l.obj.rows === 300)).toBe(true);

    // the series over the archived month answers from the rollups: the same buckets
    const after = await h.data.getSeries(seriesReq, h.caller);
    expect(after.buckets).toEqual(before.buckets);
    // a request cutting hours there is answered in whole hours (rollups), not from missing rows
    const cut = await h.data.getSeries({ pointId: point, from: '2026-02-10T00:30:00Z', to: '2026-02-10T05:30:00Z', intervalSeconds: 600 }, h.caller);
    const hours = before.buckets.filter((b) => b.start >= '2026-02-10T00:00:00.000Z' && b.start < '2026-02-10T06:00:00.000Z');
    expect(cut.buckets.reduce((s, b) => s + b.count, 0)).toBe(hours.reduce((s, b) => s + b.count, 0));
    const recentSeries = await h.data.getSeries(
      { pointId: point, from: '2026-11-02T00:00:00Z', to: '2026-11-05T00:00:00Z', intervalSeconds: 86_400 },
      h.caller,
    );
    expect(recentSeries.buckets.reduce((s, b) => s + b.count, 0)).toBe(50);

    // a second run finds nothing more to do
    const again = await archiveOnce({ db: h.dataDb, logger, clock, dir, retention: async () => new Map([[h.caller.tenantId, 1]]) });
    expect(again).toMatchObject({ ran: true, rows: 0, partitions: 0 });
  });

  it('archives and deletes a shorter-retention tenant from a month another tenant still keeps', async () => {
    const p = await h.project({ points: [{ number: 'B' }] });
    const point = p.points[0]!.id;
    await h.data.writeRecords({ projectId: p.id, records: columns(readings(point, '2026-03-05T00:00:00Z', 40, 30)) }, h.caller);
    // another tenant's rows in the same month (stored directly: the harness has one tenant)
    await h.dataDb.query(
      `INSERT INTO data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, dx, status, created_at, updated_at)
       VALUES ('rec_other', 'ten_other', 'live', 'prj_other', 'pnt_other', '2026-03-07T00:00:00Z', 0, 1, 'normal', now(), now())`,
    );
    const done = await archiveOnce({
      db: h.dataDb,
      logger,
      clock,
      dir,
      retention: async () => new Map([[h.caller.tenantId, 1]]),
    });
    expect(done).toMatchObject({ partitions: 0, tenantMonths: 1, rows: 40 });
    expect((await h.dataDb.query<{ tenant_id: string }>(`SELECT tenant_id FROM data_records_p202603`)).rows).toEqual([{ tenant_id: 'ten_other' }]);
    const lines = parseCsv(gunzipSync(await readFile(done.files[0]!)).toString('utf8'));
    expect(lines).toHaveLength(41);
  });

  it('drops nothing when another tenant stores a reading in the month while it is archived', async () => {
    const p = await h.project({ points: [{ number: 'C' }] });
    const point = p.points[0]!.id;
    await h.data.writeRecords({ projectId: p.id, records: columns(readings(point, '2026-05-05T00:00:00Z', 20, 30)) }, h.caller);
    // the reading arrives after the file was written, just before the partition is locked
    const late = (q: Queryable) =>
      q.query(
        `INSERT INTO data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, dx, status, created_at, updated_at)
         VALUES ('rec_late', 'ten_keeps', 'live', 'prj_keeps', 'pnt_keeps', '2026-05-09T00:00:00Z', 0, 1, 'normal', now(), now())`,
      );
    let stored = false;
    // the same database, where the first transaction (the removal) starts after that reading committed
    const interleave = (db: Database): Database => ({
      ...db,
      query: db.query.bind(db),
      close: db.close.bind(db),
      reserve: (max: number) => interleave(db.reserve(max)),
      transaction: async (fn) => {
        if (!stored) {
          stored = true;
          await late(db);
        }
        return db.transaction(fn);
      },
    });
    const interleaved = interleave(h.dataDb);
    const done = await archiveOnce({ db: interleaved, logger, clock, dir, retention: async () => new Map([[h.caller.tenantId, 1]]) });
    expect(done).toMatchObject({ ran: true, partitions: 0, rows: 0 });
    expect((await h.dataDb.query(`SELECT tenant_id FROM data_records_p202605`)).rows).toHaveLength(21);
    expect(await readdir(join(dir, 'data_records', '2026-05'))).toEqual([]);
    expect(logged.some((l) => l.msg === 'month left for the next archive run')).toBe(true);
    // the next run archives this tenant's rows and leaves the other's
    const next = await archiveOnce({ db: h.dataDb, logger, clock, dir, retention: async () => new Map([[h.caller.tenantId, 1]]) });
    expect(next).toMatchObject({ partitions: 0, tenantMonths: 1, rows: 20 });
    expect((await h.dataDb.query<{ tenant_id: string }>(`SELECT tenant_id FROM data_records_p202605`)).rows).toEqual([{ tenant_id: 'ten_keeps' }]);
  });
});

describe('archive runs across replicas (PostgreSQL)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rollupFoldMs: 0 });
  });
  afterAll(() => h?.stop());

  it('lets one run at a time: a run that finds another one holding the lock does nothing', async () => {
    const p = await h.project({ points: [{ number: 'D' }] });
    await h.data.writeRecords({ projectId: p.id, records: columns(readings(p.points[0]!.id, '2026-06-05T00:00:00Z', 5, 30)) }, h.caller);
    const dir = await mkdtemp(join(tmpdir(), 'mp-archive-'));
    const other = h.dataDb.reserve(1); // another replica's archive run, holding the lock (closed with the database)
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('monitoring_data.raw_archives'))`);
      const logger = createLogger('test', 'warn');
      const retention = async () => new Map([[h.caller.tenantId, 1]]);
      expect(await archiveOnce({ db: h.dataDb, logger, clock, dir, retention })).toMatchObject({ ran: false, rows: 0 });
      expect((await h.dataDb.query(`SELECT 1 FROM data_records_p202606`)).rows).toHaveLength(5);
      await other.query(`SELECT pg_advisory_unlock(hashtext('monitoring_data.raw_archives'))`);
      expect(await archiveOnce({ db: h.dataDb, logger, clock, dir, retention })).toMatchObject({ ran: true, partitions: 1, rows: 5 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
