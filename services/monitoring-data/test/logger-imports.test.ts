import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { RateLimits } from '@mp/ratelimit';
import { waitUntil } from '@mp/testing';
import { startHarness, type Harness } from './harness.js';

type Client = Harness['data'];

/** The gateway's part of an import: open it, send the file in chunks in order, finish it. */
async function upload(
  h: Harness,
  client: Client,
  projectId: string,
  profileId: string,
  file: Iterable<string> | string,
  chunkBytes = 64 * 1024,
  recordsPerMinute = 0,
): Promise<string> {
  const imp = await client.createImport({ projectId, profileId }, h.caller);
  let seq = 0;
  let pending: Buffer[] = [];
  let size = 0;
  const send = async () => {
    if (!size) return;
    await client.appendImportChunk({ id: imp.id, seq: seq++, data: Buffer.concat(pending) }, h.caller);
    pending = [];
    size = 0;
  };
  for (const piece of typeof file === 'string' ? [file] : file) {
    const b = Buffer.from(piece);
    pending.push(b);
    size += b.length;
    if (size >= chunkBytes) await send();
  }
  await send();
  await client.finishImport({ id: imp.id, recordsPerMinute, abandon: false }, h.caller);
  return imp.id;
}

const finished = (h: Harness, id: string, timeoutMs = 30_000) =>
  waitUntil(
    async () => {
      const imp = await h.data.getImport({ id }, h.caller);
      return imp.status === 'completed' || imp.status === 'failed' ? imp : null;
    },
    { timeoutMs, message: `import ${id} did not finish` },
  );

const refusal = async (p: Promise<unknown>): Promise<{ code: string; field?: string; suggestion?: string }> => {
  try {
    await p;
  } catch (err) {
    const e = err as DomainError;
    return { code: e.code, ...(e.field ? { field: e.field } : {}), ...(e.suggestion ? { suggestion: e.suggestion } : {}) };
  }
  throw new Error('not refused');
};

const profileInput = (projectId: string, over: Partial<monitoringData.ImportProfileInput> = {}): monitoringData.ImportProfileInput => ({
  projectId,
  name: 'CR1000 table Hourly',
  format: 'csv',
  timestampColumn: 'time',
  timeZone: 'Europe/Zurich',
  columns: [],
  columnsSet: true,
  clear: [],
  ...over,
});

describe('logger file imports (CSV, TOA5) through import profiles', () => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['project']>>;
  let tilt: string, piezo: string, prism: string, thermo: string;

  beforeAll(async () => {
    h = await startHarness();
    p = await h.project({
      points: [
        { number: 'TM-1', name: 'Tiltmeter TM-1', sensorType: 'tiltmeter', reference: undefined, warningThreshold: 0, alarmThreshold: 0 },
        { number: 'PZ-1', name: 'Piezometer PZ-1', sensorType: 'piezometer', reference: undefined, warningThreshold: 0, alarmThreshold: 0 },
        { number: 'P-1', name: 'Prism P-1' },
        { number: 'TH-1', name: 'Thermometer TH-1', sensorType: 'thermometer', reference: undefined, warningThreshold: 0, alarmThreshold: 0 },
      ],
    });
    [tilt, piezo, prism, thermo] = p.points.map((x) => x.id) as [string, string, string, string];
  });
  afterAll(() => h?.stop());

  const csvProfile = () =>
    h.data.createImportProfile(
      profileInput(p.id, {
        columns: [
          { column: 'TM1_A', pointId: tilt, channel: 'tilt_a' },
          { column: 'TM1_T', pointId: tilt, channel: 'temperature' },
          { column: 'PZ1_kPa', pointId: piezo, channel: 'pore_pressure' },
          { column: 'P1_dz', pointId: prism, channel: 'dz' },
        ],
      }),
      h.caller,
    );

  it('stores a CSV file: one reading per point and row, wall times in the profile time zone with their offset, channels in jsonb; the same file again is all duplicates', async () => {
    const profile = await csvProfile();
    const file =
      ['time,TM1_A,TM1_T,PZ1_kPa,P1_dz', '2026-03-02 08:00:00,0.51,12.5,101.2,-1.5', '2026-03-02 08:10:00,0.52,,101.4,NAN', '2026-03-02 08:20:00,,,,'].join(
        '\n',
      ) + '\n';
    const id = await upload(h, h.data, p.id, profile.id, file);
    expect(id).toMatch(/^imp_[0-9a-z]{20}$/);
    const done = await finished(h, id);
    expect(done).toMatchObject({ status: 'completed', rows: 3, stored: 5, duplicates: 0, rejected: 0, errorCount: 0, errors: [] });
    const rows = await h.rows<{
      point_id: string;
      measured_at: string;
      utc_offset: number;
      channels: Record<string, number> | null;
      dz: number | null;
      batch_id: string;
    }>(
      'SELECT point_id, measured_at, utc_offset, channels, dz, batch_id FROM monitoring_data.data_records WHERE project_id = $1 ORDER BY measured_at, point_id',
      [p.id],
    );
    const order = [tilt, piezo, prism];
    rows.sort((a, b) => a.measured_at.localeCompare(b.measured_at) || order.indexOf(a.point_id) - order.indexOf(b.point_id));
    expect(rows.map((r) => [r.point_id, r.measured_at, r.utc_offset])).toEqual([
      [tilt, '2026-03-02T07:00:00.000Z', 60],
      [piezo, '2026-03-02T07:00:00.000Z', 60],
      [prism, '2026-03-02T07:00:00.000Z', 60],
      [tilt, '2026-03-02T07:10:00.000Z', 60],
      [piezo, '2026-03-02T07:10:00.000Z', 60],
    ]);
    expect(rows[0]!.channels).toEqual({ tilt_a: 0.51, temperature: 12.5 });
    expect(rows[3]!.channels).toEqual({ tilt_a: 0.52 });
    expect(rows[2]!.dz).toBe(-1.5);
    expect(new Set(rows.map((r) => r.batch_id))).toEqual(new Set([id]));

    const again = await finished(h, await upload(h, h.data, p.id, profile.id, file));
    expect(again).toMatchObject({ status: 'completed', rows: 3, stored: 0, duplicates: 5, rejected: 0, errorCount: 0 });
    const [{ n }] = await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_data.data_records WHERE project_id = $1', [p.id]);
    expect(n).toBe(5);
  });

  it('names a bad cell by its row (header included) and column and refuses that reading only; a value out of range is refused by the write rules with its column', async () => {
    const profile = await csvProfile();
    const file = [
      'time,TM1_A,TM1_T,PZ1_kPa,P1_dz',
      '2026-03-03 08:00:00,0.5x,12.5,101.2,',
      '2026-03-03 08:10:00,0.52,12.6,999999,',
      'not a time,0.1,1,1,',
    ].join('\r\n');
    const done = await finished(h, await upload(h, h.data, p.id, profile.id, file));
    expect(done.status).toBe('completed');
    expect(done).toMatchObject({ rows: 3, stored: 2, duplicates: 0, rejected: 4, errorCount: 3 });
    expect(done.errors.map((e) => [e.row, e.column, e.code])).toEqual([
      [2, 'TM1_A', '400004'],
      [3, 'PZ1_kPa', '422201'],
      [4, 'time', '400004'],
    ]);
    expect(done.errors[0]!.message).toContain('0.5x');
    const stored = await h.rows<{ point_id: string }>(
      "SELECT point_id FROM monitoring_data.data_records WHERE project_id = $1 AND measured_at >= '2026-03-03' ORDER BY measured_at, point_id",
      [p.id],
    );
    expect(stored.map((r) => r.point_id).sort()).toEqual([piezo, tilt].sort());
  });

  it('applies the daylight-saving rules: a wall time that does not exist is refused naming the time column; a repeated hour is stored twice, in file order', async () => {
    const profile = await h.data.createImportProfile(
      profileInput(p.id, { timestampFormat: 'DD/MM/YYYY HH:mm', columns: [{ column: 'T', pointId: thermo, channel: 'temperature' }] }),
      h.caller,
    );
    const spring = ['time;T', '29/03/2026 01:30;1', '29/03/2026 02:30;2', '29/03/2026 03:30;3'];
    const autumn = ['25/10/2026 01:30;4', '25/10/2026 02:00;5', '25/10/2026 02:30;6', '25/10/2026 02:00;7', '25/10/2026 02:30;8', '25/10/2026 03:00;9'];
    await h.data.updateImportProfile({ id: profile.id, delimiter: ';', columns: [], columnsSet: false, clear: [] }, h.caller);
    const done = await finished(h, await upload(h, h.data, p.id, profile.id, [...spring, ...autumn].join('\n')));
    expect(done).toMatchObject({ status: 'completed', rows: 9, stored: 8, rejected: 1, errorCount: 1 });
    expect(done.errors).toEqual([{ row: 3, column: 'time', code: '400004', message: expect.stringContaining('does not exist in Europe/Zurich') }]);
    const rows = await h.rows<{ measured_at: string; utc_offset: number; t: number }>(
      "SELECT measured_at, utc_offset, (channels->>'temperature')::float AS t FROM monitoring_data.data_records WHERE point_id = $1 AND measured_at >= '2026-03-29' AND measured_at < '2026-11-01' ORDER BY measured_at",
      [thermo],
    );
    expect(rows.map((r) => [r.measured_at, r.utc_offset, r.t])).toEqual([
      ['2026-03-29T00:30:00.000Z', 60, 1],
      ['2026-03-29T01:30:00.000Z', 120, 3],
      ['2026-10-24T23:30:00.000Z', 120, 4],
      ['2026-10-25T00:00:00.000Z', 120, 5],
      ['2026-10-25T00:30:00.000Z', 120, 6],
      ['2026-10-25T01:00:00.000Z', 60, 7],
      ['2026-10-25T01:30:00.000Z', 60, 8],
      ['2026-10-25T02:00:00.000Z', 60, 9],
    ]);
  });

  it('reads a Campbell TOA5 file: four header lines, TIMESTAMP, NAN for a missing value, decimal commas where the profile says so', async () => {
    const profile = await h.data.createImportProfile(
      profileInput(p.id, {
        format: 'toa5',
        timestampColumn: undefined,
        timeZone: 'Etc/GMT-1',
        columns: [
          { column: 'PZ1_kPa_Avg', pointId: piezo, channel: 'pore_pressure' },
          { column: 'PZ1_Freq', pointId: piezo, channel: 'frequency' },
        ],
      }),
      h.caller,
    );
    expect(profile.timestampColumn).toBe('TIMESTAMP');
    const file = [
      '"TOA5","Site_A","CR1000","12345","CR1000.Std.32","CPU:site.CR1","4711","Hourly"',
      '"TIMESTAMP","RECORD","PZ1_kPa_Avg","PZ1_Freq"',
      '"TS","RN","kPa","Hz"',
      '"","","Avg","Smp"',
      '"2026-03-04 10:00:00",1,120.5,2500.25',
      '"2026-03-04 11:00:00",2,"NAN",2501',
    ].join('\r\n');
    const done = await finished(h, await upload(h, h.data, p.id, profile.id, file, 40));
    expect(done).toMatchObject({ status: 'completed', rows: 2, stored: 2, errorCount: 0 });
    const rows = await h.rows<{ measured_at: string; utc_offset: number; channels: Record<string, number> }>(
      "SELECT measured_at, utc_offset, channels FROM monitoring_data.data_records WHERE point_id = $1 AND measured_at >= '2026-03-04' AND measured_at < '2026-03-05' ORDER BY measured_at",
      [piezo],
    );
    expect(rows[0]).toMatchObject({
      measured_at: '2026-03-04T09:00:00.000Z',
      utc_offset: 60,
      channels: expect.objectContaining({ pore_pressure: 120.5, frequency: 2500.25 }),
    });
    expect(rows[1]!.channels.frequency).toBe(2501);
    expect(rows[1]!.channels.pore_pressure === undefined || rows[1]!.channels.pore_pressure !== 120.5).toBe(true);

    const comma = await h.data.createImportProfile(
      profileInput(p.id, { decimal: ',', columns: [{ column: 'T', pointId: thermo, channel: 'temperature' }] }),
      h.caller,
    );
    const c = await finished(h, await upload(h, h.data, p.id, comma.id, 'time;T\n2026-03-05T10:00:00+01:00;"12,75"\n'));
    expect(c).toMatchObject({ stored: 1, errorCount: 0 });
    const [t] = await h.rows<{ t: number }>(
      "SELECT (channels->>'temperature')::float AS t FROM monitoring_data.data_records WHERE point_id = $1 AND measured_at = '2026-03-05T09:00:00Z'",
      [thermo],
    );
    expect(t!.t).toBe(12.75);

    const notToa5 = await finished(h, await upload(h, h.data, p.id, profile.id, 'TIMESTAMP,PZ1_kPa_Avg\n2026-03-04 10:00:00,1\n'));
    expect(notToa5).toMatchObject({ status: 'failed', failureCode: '400002', stored: 0 });
    // A quote never closed: csv-parse cannot read on, the import fails naming it (chunks committed before stay stored).
    const broken = await finished(h, await upload(h, h.data, p.id, comma.id, 'time;T\n2026-03-06T10:00:00Z;1\n2026-03-06T11:00:00Z;"2\n'));
    expect(broken).toMatchObject({ status: 'failed', failureCode: '400002' });
    expect(broken.failureDetail).toMatch(/cannot be read as CSV.*[Qq]uote/);
  });

  it('refuses a profile naming a channel its point lacks, or a point of another project, naming the column entry, and stores nothing', async () => {
    const other = await h.project({ points: [{ number: 'X-1' }] });
    const before = await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_data.import_profiles');
    expect(
      await refusal(
        h.data.createImportProfile(
          profileInput(p.id, {
            columns: [
              { column: 'A', pointId: tilt, channel: 'tilt_a' },
              { column: 'B', pointId: piezo, channel: 'tilt_b' },
            ],
          }),
          h.caller,
        ),
      ),
    ).toEqual({ code: '422103', field: 'columns[1].channel', suggestion: 'Use one of its channels: pore_pressure, frequency, temperature.' });
    expect(
      await refusal(h.data.createImportProfile(profileInput(p.id, { columns: [{ column: 'A', pointId: other.points[0]!.id, channel: 'dz' }] }), h.caller)),
    ).toMatchObject({ code: '422104', field: 'columns[0].point_id' });
    expect(
      await refusal(
        h.data.createImportProfile(profileInput(p.id, { timeZone: 'Mars/Olympus', columns: [{ column: 'A', pointId: tilt, channel: 'tilt_a' }] }), h.caller),
      ),
    ).toMatchObject({
      code: '422103',
      field: 'time_zone',
    });
    const many = Array.from({ length: 501 }, (_, i) => ({ column: `c${i}`, pointId: tilt, channel: 'tilt_a' }));
    expect(await refusal(h.data.createImportProfile(profileInput(p.id, { columns: many }), h.caller))).toMatchObject({ code: '400003', field: 'columns' });
    const after = await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_data.import_profiles');
    expect(after).toEqual(before);
  });

  it('refuses a project member without write access the profile writes and the upload, and one who is not a member everything', async () => {
    const profile = await csvProfile();
    const outsider = { ...h.caller, principalType: 'user' as const, principalId: 'usr_outsider000000000001', permissions: ['data:read', 'data:write'] };
    expect(await refusal(h.data.getImportProfile({ id: profile.id }, outsider))).toMatchObject({ code: '403001' });
    expect(await refusal(h.data.createImport({ projectId: p.id, profileId: profile.id }, outsider))).toMatchObject({ code: '403001' });
    expect(await refusal(h.data.listImportProfiles({ projectId: p.id, page: undefined }, outsider))).toMatchObject({ code: '403001' });
  });

  it('fails an upload that never finished after six hours and drops its bytes', async () => {
    const profile = await csvProfile();
    const imp = await h.data.createImport({ projectId: p.id, profileId: profile.id }, h.caller);
    await h.data.appendImportChunk({ id: imp.id, seq: 0, data: Buffer.from('time,TM1_A\n') }, h.caller);
    await h.rows("UPDATE monitoring_data.imports SET created_at = now() - interval '7 hours' WHERE id = $1", [imp.id]);
    // A replica started now sweeps at once.
    await h.replica();
    const failed = await waitUntil(async () => {
      const r = await h.data.getImport({ id: imp.id }, h.caller);
      return r.status === 'failed' ? r : null;
    });
    expect(failed).toMatchObject({ failureCode: '400002', failureDetail: 'The upload did not finish.' });
    expect(await h.rows('SELECT 1 FROM monitoring_data.import_chunks WHERE import_id = $1', [imp.id])).toEqual([]);
  });

  it('resumes an import stopped half-way from its committed rows on another replica, storing each reading once', async () => {
    // Only the replica started here takes imports: the first one's worker is stopped.
    await h.services[0]!.importWorker.stop();
    const slow = await h.replica({ batchChunk: 50, imports: { leaseSeconds: 1 } });
    const profile = await h.data.createImportProfile(
      profileInput(p.id, { timeZone: 'UTC', columns: [{ column: 'T', pointId: thermo, channel: 'temperature' }] }),
      h.caller,
    );
    const rows = 3000;
    const lines = function* () {
      yield 'time,T\n';
      for (let i = 0; i < rows; i++) yield `${new Date(Date.UTC(2026, 4, 1) + i * 60_000).toISOString()},${(i % 100) / 10}\n`;
    };
    const id = await upload(h, slow, p.id, profile.id, lines(), 8 * 1024);
    const half = await waitUntil(async () => {
      const imp = await h.data.getImport({ id }, h.caller);
      return imp.rows >= 500 ? imp : null;
    });
    await h.services[h.services.length - 1]!.importWorker.stop();
    const stopped = await h.data.getImport({ id }, h.caller);
    expect(stopped.status).toBe('processing');
    expect(stopped.rows).toBeGreaterThanOrEqual(half.rows);
    expect(stopped.rows).toBeLessThan(rows);
    // As a worker that died would: its lease still holds for a moment.
    await h.rows("UPDATE monitoring_data.imports SET lease_until = now() + interval '1 second' WHERE id = $1", [id]);
    await h.replica({ batchChunk: 200 });
    const done = await finished(h, id);
    expect(done).toMatchObject({ status: 'completed', rows, stored: rows, duplicates: 0, errorCount: 0 });
    const [{ n, distinct }] = await h.rows<{ n: number; distinct: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT measured_at)::int AS distinct FROM monitoring_data.data_records WHERE point_id = $1 AND measured_at >= '2026-05-01' AND measured_at < '2026-06-01'",
      [thermo],
    );
    expect([n, distinct]).toEqual([rows, rows]);
    const chunks = await h.rows('SELECT 1 FROM monitoring_data.import_chunks WHERE import_id = $1', [id]);
    expect(chunks).toEqual([]);
  });

  it('resumes an import whose chunks committed out of order: every committed range is skipped, only the rows between them are stored, and times read again through the skipped rows keep the daylight-saving rule', async () => {
    for (const svc of h.services) await svc.importWorker.stop();
    const profile = await h.data.createImportProfile(profileInput(p.id, { columns: [{ column: 'P', pointId: piezo, channel: 'pore_pressure' }] }), h.caller);
    // Zurich, 25 October 2026: 02:00–02:59 happens twice (CEST, then CET).
    const walls = [
      ...['01:00', '01:10', '01:20', '01:30', '01:40', '01:50', '02:00', '02:10', '02:20', '02:30', '02:40', '02:50'],
      ...['02:00', '02:10', '02:20', '02:30', '02:40', '02:50'],
      ...['03:00', '03:10', '03:20', '03:30', '03:40', '03:50'],
    ];
    const file = ['time,P', ...walls.map((w, i) => `2026-10-25 ${w},${100 + i}`)].join('\n');
    const id = await upload(h, h.data, p.id, profile.id, file);
    // As a worker that stored chunks [0, 14) and [16, 20) and died while [14, 16) was in flight
    // (its readings are not written here: the check below proves they are not stored again).
    await h.rows("UPDATE monitoring_data.imports SET done_rows = '{[0,14),[16,20)}', rows_done = 18, stored = 18 WHERE id = $1", [id]);
    await h.replica({ batchChunk: 2, imports: { concurrency: 3 } });
    const done = await finished(h, id);
    expect(done).toMatchObject({ status: 'completed', rows: walls.length, stored: walls.length, duplicates: 0, errorCount: 0 });
    const rows = await h.rows<{ measured_at: string; p: number }>(
      "SELECT measured_at, (channels->>'pore_pressure')::float AS p FROM monitoring_data.data_records WHERE point_id = $1 AND measured_at >= '2026-10-24T22:00Z' AND measured_at < '2026-10-25T04:00Z' ORDER BY measured_at",
      [piezo],
    );
    // Rows 14 and 15 are the repeated hour's second 02:20 and 02:30 (CET): the skipped rows before them say so.
    expect(rows.map((r) => [r.measured_at, r.p])).toEqual([
      ['2026-10-25T01:20:00.000Z', 114],
      ['2026-10-25T01:30:00.000Z', 115],
      ['2026-10-25T02:20:00.000Z', 120],
      ['2026-10-25T02:30:00.000Z', 121],
      ['2026-10-25T02:40:00.000Z', 122],
      ['2026-10-25T02:50:00.000Z', 123],
    ]);
  });

  it("stores a file larger than what is left of the window at the tenant's rate, its progress visible meanwhile, and counts its readings against the limit", async () => {
    for (const svc of h.services) await svc.importWorker.stop();
    // Windows of 2 s instead of a minute, so the test sees several.
    const limits = new RateLimits({ prefix: `test:${Date.now()}`, limits: { data_records: { durationSeconds: 2 } } });
    await h.replica({ batchChunk: 1000, imports: { limits } });
    const profile = await h.data.createImportProfile(
      profileInput(p.id, { timeZone: 'UTC', columns: [{ column: 'T', pointId: thermo, channel: 'temperature' }] }),
      h.caller,
    );
    const rows = 250;
    const file = ['time,T', ...Array.from({ length: rows }, (_, i) => `${new Date(Date.UTC(2026, 6, 1) + i * 60_000).toISOString()},${i % 30}`)].join('\n');
    // 100 readings per window: about three windows for the file.
    const started = Date.now();
    const id = await upload(h, h.data, p.id, profile.id, file, 64 * 1024, 100);
    const partial = await waitUntil(async () => {
      const imp = await h.data.getImport({ id }, h.caller);
      return imp.status === 'processing' && imp.rows > 0 && imp.rows < rows ? imp : null;
    });
    expect(partial.stored).toBe(partial.rows);
    const done = await finished(h, id);
    expect(done).toMatchObject({ status: 'completed', rows, stored: rows });
    // Three windows of 100: the last 50 cannot go before the third window opens.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    const verdict = await limits.consume('data_records', `${h.caller.tenantId}:${h.caller.environment}`, 0, 100);
    expect(verdict.remaining).toBeLessThan(100);
    await limits.close();
  });
});
