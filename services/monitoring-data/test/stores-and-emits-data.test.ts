import { DomainError } from '@mp/errors';
import { waitUntil } from '@mp/testing';
import { columns, startHarness, type Harness, type RecordIn } from './harness.js';

describe('accepted data: derivation, status, events, corrections, queries, batches', () => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['project']>>;
  let a: string, b: string;
  const write = (records: RecordIn[], projectId = p.id) => h.data.writeRecords({ projectId, records: columns(records) }, h.caller);

  beforeAll(async () => {
    h = await startHarness();
    p = await h.project({
      name: 'Metro Line 4 tunnel',
      points: [
        { name: 'JC-01', number: 'JC-01' },
        { name: 'JC-02', number: 'JC-02', sensorType: 'level' },
      ],
    });
    [a, b] = p.points.map((x) => x.id) as [string, string];
  });
  afterAll(() => h?.stop());

  it('derives displacements in mm from coordinates in m, sets the status from the thresholds, and writes data.created and data.abnormal with their documented payloads', async () => {
    const res = await write([
      // reference 3512345.1 / 512345.6 / 45.3: dx 1, dy 2, dz -3 mm → normal
      { point_id: a, measured_at: '2026-03-01T08:30:00+08:00', values: { x: 3512345.101, y: 512345.602, z: 45.297 } },
      // largest |d| exactly 10 mm → warning (thresholds are reached, not exceeded)
      { point_id: b, measured_at: '2026-03-01T00:30:00Z', values: { dz: -10 } },
      // dz -25 mm over the 20 mm alarm threshold
      { point_id: a, measured_at: '2026-03-01T10:30:00.250-03:30', values: { x: 3512345.1, y: 512345.6, z: 45.275 } },
    ]);
    expect(res.status).toEqual(['normal', 'warning', 'alarm']);
    expect(res.measuredAt).toEqual(['2026-03-01T08:30:00+08:00', '2026-03-01T00:30:00Z', '2026-03-01T10:30:00.250-03:30']);
    expect(res.totalCount).toBe(3);
    expect(res.abnormalCount).toBe(2);
    const rows = await h.rows(
      'SELECT id, point_id, measured_at, utc_offset, x, dx, dy, dz, status, quality_flag FROM monitoring_data.data_records ORDER BY measured_at',
    );
    expect(rows).toEqual([
      {
        id: res.dataId[0],
        point_id: a,
        measured_at: '2026-03-01T00:30:00.000Z',
        utc_offset: 480,
        x: 3512345.101,
        dx: 1,
        dy: 2,
        dz: -3,
        status: 'normal',
        quality_flag: 'valid',
      },
      {
        id: res.dataId[1],
        point_id: b,
        measured_at: '2026-03-01T00:30:00.000Z',
        utc_offset: 0,
        x: null,
        dx: null,
        dy: null,
        dz: -10,
        status: 'warning',
        quality_flag: 'valid',
      },
      {
        id: res.dataId[2],
        point_id: a,
        measured_at: '2026-03-01T14:00:00.250Z',
        utc_offset: -210,
        x: 3512345.1,
        dx: 0,
        dy: 0,
        dz: -25,
        status: 'alarm',
        quality_flag: 'valid',
      },
    ]);
    const events = await h.outbox();
    // the two crossings also open an alarm each (JC-02 at warning, JC-01 at alarm), which the
    // notification rules are fed from
    expect(events.map((e) => e.event_type)).toEqual(['data.created', 'data.abnormal', 'alarm.opened', 'alarm.opened']);
    const opened = events.slice(2).map((e) => [e.data.point_id, e.data.level, e.data.channel, e.data.data_id]);
    expect(opened).toHaveLength(2);
    expect(opened).toEqual(
      expect.arrayContaining([
        [b, 'warning', 'dz', res.dataId[1]],
        [a, 'alarm', 'dz', res.dataId[2]],
      ]),
    );
    expect(events[0]!.data).toEqual({
      project_id: p.id,
      project_name: 'Metro Line 4 tunnel',
      records: [
        {
          data_id: res.dataId[0],
          point_id: a,
          point_name: 'JC-01',
          sensor_type: 'total_station',
          measured_at: '2026-03-01T08:30:00+08:00',
          values: { x: 3512345.101, y: 512345.602, z: 45.297, dx: 1, dy: 2, dz: -3 },
          status: 'normal',
          quality_flag: 'valid',
        },
        {
          data_id: res.dataId[1],
          point_id: b,
          point_name: 'JC-02',
          sensor_type: 'level',
          measured_at: '2026-03-01T00:30:00Z',
          values: { dz: -10 },
          status: 'warning',
          quality_flag: 'valid',
        },
        {
          data_id: res.dataId[2],
          point_id: a,
          point_name: 'JC-01',
          sensor_type: 'total_station',
          measured_at: '2026-03-01T10:30:00.250-03:30',
          values: { x: 3512345.1, y: 512345.6, z: 45.275, dx: 0, dy: 0, dz: -25 },
          status: 'alarm',
          quality_flag: 'valid',
        },
      ],
      total_count: 3,
      abnormal_count: 2,
    });
    expect(events[1]!.data).toEqual({
      project_id: p.id,
      project_name: 'Metro Line 4 tunnel',
      alert_level: 'alarm',
      records: [
        {
          data_id: res.dataId[1],
          point_id: b,
          point_name: 'JC-02',
          sensor_type: 'level',
          measured_at: '2026-03-01T00:30:00Z',
          values: { dz: -10 },
          status: 'warning',
          threshold: { warning: 10, alarm: 20 },
          reason: expect.stringContaining('dz -10 mm reached the warning threshold of 10 mm'),
        },
        {
          data_id: res.dataId[2],
          point_id: a,
          point_name: 'JC-01',
          sensor_type: 'total_station',
          measured_at: '2026-03-01T10:30:00.250-03:30',
          values: { dx: 0, dy: 0, dz: -25 },
          status: 'alarm',
          threshold: { warning: 10, alarm: 20 },
          reason: expect.stringContaining('dz -25 mm reached the alarm threshold of 20 mm'),
        },
      ],
    });
    // and the relay published them
    await waitUntil(() => h.published.filter((e) => e.event_type.startsWith('data.')).length === 2);
  });

  it('takes the records in dictionary form (as the gateway sends them) and answers in it, storing and emitting what the plain form does', async () => {
    // a project of its own, so the reads of the tests below see only their records
    const q = await h.project({
      name: 'Dictionary tunnel',
      points: [
        { name: 'JC-01', number: 'JC-01' },
        { name: 'JC-02', number: 'JC-02', sensorType: 'level' },
      ],
    });
    const [a, b] = q.points.map((x) => x.id) as [string, string];
    const records: RecordIn[] = [
      { point_id: a, measured_at: '2026-04-01T08:30:00+08:00', values: { x: 3512345.101, y: 512345.602, z: 45.297 } },
      { point_id: b, measured_at: '2026-04-01T08:30:00+08:00', values: { dz: -21 } },
      { point_id: a, measured_at: '2026-04-01T09:30:00+08:00', values: { x: 3512345.1, y: 512345.6, z: 45.3 } },
    ];
    const before = (await h.outbox()).length;
    const res = await h.data.writeRecords({ projectId: q.id, records: columns(records, 'dictionary') }, h.caller);
    expect(res).toMatchObject({
      status: [],
      measuredAt: [],
      statuses: ['normal', 'alarm'],
      statusIndex: [0, 1, 0],
      instants: ['2026-04-01T08:30:00+08:00', '2026-04-01T09:30:00+08:00'],
      instantIndex: [0, 0, 1],
      totalCount: 3,
      abnormalCount: 1,
    });
    const rows = await h.rows(
      'SELECT id, point_id, measured_at, dx, dz, status FROM monitoring_data.data_records WHERE id = ANY($1) ORDER BY measured_at, point_id',
      [res.dataId],
    );
    expect(rows).toEqual(
      [
        { id: res.dataId[0], point_id: a, measured_at: '2026-04-01T00:30:00.000Z', dx: 1, dz: -3, status: 'normal' },
        { id: res.dataId[1], point_id: b, measured_at: '2026-04-01T00:30:00.000Z', dx: null, dz: -21, status: 'alarm' },
        { id: res.dataId[2], point_id: a, measured_at: '2026-04-01T01:30:00.000Z', dx: 0, dz: 0, status: 'normal' },
      ].sort((x, y) => x.measured_at.localeCompare(y.measured_at) || x.point_id.localeCompare(y.point_id)),
    );
    const events = (await h.outbox()).slice(before);
    // JC-02 at -21 mm opens an alarm (JC-01 stays normal)
    expect(events.map((e) => e.event_type)).toEqual(['data.created', 'data.abnormal', 'alarm.opened']);
    expect(events[2]!.data).toMatchObject({ point_id: b, level: 'alarm', channel: 'dz' });
    expect((events[0]!.data.records as { point_id: string; measured_at: string }[]).map((r) => [r.point_id, r.measured_at])).toEqual(
      records.map((r) => [r.point_id, r.measured_at]),
    );
  });

  it('emits no data.abnormal when every record is normal', async () => {
    const before = (await h.outbox()).length;
    await write([{ point_id: b, measured_at: '2026-03-02T00:00:00Z', values: { dz: -9.99 } }]);
    expect((await h.outbox()).slice(before).map((e) => e.event_type)).toEqual(['data.created']);
  });

  it('reads records by project and by point, newest first, in pages, and within a time range', async () => {
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await h.data.listRecords({ projectId: p.id, page: { limit: 2, cursor } }, h.caller);
      seen.push(...page.items.map((r) => r.measuredAt));
      cursor = page.page?.nextCursor ?? '';
    } while (cursor);
    expect(seen.slice(0, 2)).toEqual(['2026-03-02T00:00:00Z', '2026-03-01T10:30:00.250-03:30']);
    // the same instant, at two points: ordered by id within it
    expect(seen.slice(2).sort()).toEqual(['2026-03-01T00:30:00Z', '2026-03-01T08:30:00+08:00']);
    const ranged = await h.data.listRecords({ pointId: a, from: '2026-03-01T00:00:00Z', to: '2026-03-01T12:00:00Z', order: 'asc', page: undefined }, h.caller);
    expect(ranged.items.map((r) => r.values)).toEqual([{ x: 3512345.101, y: 512345.602, z: 45.297, dx: 1, dy: 2, dz: -3 }]);
    const alarms = await h.data.listRecords({ projectId: p.id, status: 'alarm', page: undefined }, h.caller);
    expect(alarms.items).toHaveLength(1);
    await expect(h.data.listRecords({ projectId: p.id, from: 'yesterday', page: undefined }, h.caller)).rejects.toMatchObject({
      code: '400004',
      field: 'from',
    });
  });

  it('corrects a record with PATCH (data.updated, version), refuses a stale version with 409004, and deletes it', async () => {
    const [rec] = (await h.data.listRecords({ pointId: a, status: 'alarm', page: undefined }, h.caller)).items;
    const before = (await h.outbox()).length;
    const updated = await h.data.updateRecord(
      { id: rec!.id, expectedVersion: 1, values: { x: 3512345.1, y: 512345.6, z: 45.29 }, remark: 're-measured', clear: [] },
      h.caller,
    );
    expect(updated).toMatchObject({
      version: 2,
      status: 'warning',
      remark: 're-measured',
      values: { x: 3512345.1, y: 512345.6, z: 45.29, dx: 0, dy: 0, dz: -10 },
    });
    await expect(h.data.updateRecord({ id: rec!.id, expectedVersion: 1, qualityFlag: 'invalid', clear: [] }, h.caller)).rejects.toMatchObject({
      code: '409004',
      field: 'version',
    });
    const events = (await h.outbox()).slice(before);
    expect(events.map((e) => e.event_type)).toEqual(['data.updated', 'data.abnormal']);
    expect(events[0]!.data).toMatchObject({
      project_id: p.id,
      change: 'updated',
      changed_fields: ['values', 'status', 'remark'],
      records: [{ data_id: rec!.id, status: 'warning', quality_flag: 'valid' }],
    });

    const deleted = await h.data.deleteRecord({ id: rec!.id }, h.caller);
    expect(deleted.id).toBe(rec!.id);
    await expect(h.data.getRecord({ id: rec!.id }, h.caller)).rejects.toMatchObject({ code: '404004', field: 'data_id' });
    expect((await h.outbox()).at(-1)).toMatchObject({ event_type: 'data.updated', data: { change: 'deleted', records: [{ data_id: rec!.id }] } });
  });

  it('serves a downsampled series (count, min/avg/max per bucket) and the latest valid value per point', async () => {
    const records: RecordIn[] = Array.from({ length: 48 }, (_, i) => ({
      point_id: b,
      measured_at: new Date(Date.UTC(2026, 4, 1) + i * 1800_000).toISOString(),
      values: { dz: i === 0 ? 0 : -i / 10 },
    }));
    await write(records);
    const series = await h.data.getSeries({ pointId: b, from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z', intervalSeconds: 6 * 3600 }, h.caller);
    expect(series.intervalSeconds).toBe(21600);
    expect(series.buckets.map((k) => k.start)).toEqual([
      '2026-05-01T00:00:00.000Z',
      '2026-05-01T06:00:00.000Z',
      '2026-05-01T12:00:00.000Z',
      '2026-05-01T18:00:00.000Z',
    ]);
    expect(series.buckets[0]).toMatchObject({ count: 12, dz: { min: -1.1, max: 0 } });
    // the mean of 0, -0.1, …, -1.1, exactly as written (the database's double sum is -0.5499999999999999)
    expect(series.buckets[0]!.dz!.avg).toBe(-0.55);
    expect(series.buckets[0]!.dx).toBeUndefined();

    const [newest] = (await h.data.listRecords({ pointId: b, page: { limit: 1, cursor: '' } }, h.caller)).items;
    await h.data.updateRecord({ id: newest!.id, qualityFlag: 'invalid', clear: [] }, h.caller);
    const latest = await h.data.getLatest({ projectId: p.id, pointIds: [], page: { limit: 10, cursor: '' } }, h.caller);
    const byPoint = Object.fromEntries(latest.items.map((r) => [r.pointId, r.measuredAt]));
    // the invalidated record is skipped: the one before it is the latest valid value
    expect(byPoint).toEqual({ [a]: '2026-03-01T08:30:00+08:00', [b]: '2026-05-01T23:00:00.000Z'.replace('.000', '') });
  });

  it('processes a batch asynchronously: stores the valid records, lists each refused one, and emits data.batch_completed', async () => {
    const records: RecordIn[] = Array.from({ length: 2500 }, (_, i) => ({
      point_id: i % 2 ? a : b,
      measured_at: new Date(Date.UTC(2026, 5, 1) + i * 60_000).toISOString(),
      values: i % 2 ? { x: 3512345.1, y: 512345.6, z: 45.3 } : { dz: -1 },
    }));
    records[5] = { ...records[5]!, point_id: 'pt_00000000000000000000' };
    records[1500] = { ...records[1500]!, measured_at: records[10]!.measured_at, point_id: records[10]!.point_id };
    records[2400] = { ...records[2400]!, values: { x: 3512345.112, dx: 5 } };
    const before = (await h.outbox()).length;
    const created = await h.data.createBatch({ projectId: p.id, records: columns(records) }, h.caller);
    expect(created).toMatchObject({ status: 'pending', totalCount: 2500, processedCount: 0 });
    const done = await waitUntil(async () => {
      const batch = await h.data.getBatch({ id: created.id, errorsPage: undefined }, h.caller);
      return batch.status === 'completed' ? batch : null;
    });
    expect(done).toMatchObject({ processedCount: 2500, acceptedCount: 2497, rejectedCount: 3, abnormalCount: 0 });
    expect(done.errors.map((e) => [e.index, e.code, e.field])).toEqual([
      [5, '404003', 'records[5].point_id'],
      [1500, '409003', 'records[1500].measured_at'],
      [2400, '422204', 'records[2400].values.dx'],
    ]);
    const stored = await h.rows<{ n: number }>(`SELECT count(*)::int AS n FROM monitoring_data.data_records WHERE batch_id = $1`, [created.id]);
    expect(stored[0]!.n).toBe(2497);
    // (its normal readings also clear the alarm of an earlier test: alarm.cleared, see alarms-rules.test.ts)
    const events = (await h.outbox()).slice(before).filter((e) => e.event_type.startsWith('data.'));
    expect(events.map((e) => e.event_type)).toEqual(['data.created', 'data.created', 'data.created', 'data.batch_completed']);
    expect(events.slice(0, 3).map((e) => e.data.total_count)).toEqual([999, 999, 499]);
    expect(events[3]!.data).toMatchObject({
      batch_id: created.id,
      project_id: p.id,
      project_name: 'Metro Line 4 tunnel',
      status: 'completed',
      total_count: 2500,
      accepted_count: 2497,
      rejected_count: 3,
    });
    await expect(h.data.getBatch({ id: 'bat_00000000000000000000', errorsPage: undefined }, h.caller)).rejects.toMatchObject({ code: '404013' });
  });

  it('processes a batch sent in dictionary form', async () => {
    // both points at each of 15 instants
    const records: RecordIn[] = Array.from({ length: 30 }, (_, i) => ({
      point_id: i % 2 ? a : b,
      measured_at: new Date(Date.UTC(2026, 9, 1) + Math.floor(i / 2) * 60_000).toISOString(),
      values: { dz: -1 },
    }));
    const created = await h.data.createBatch({ projectId: p.id, records: columns(records, 'dictionary') }, h.caller);
    expect(created).toMatchObject({ status: 'pending', totalCount: 30 });
    const done = await waitUntil(async () => {
      const batch = await h.data.getBatch({ id: created.id, errorsPage: undefined }, h.caller);
      return batch.status === 'completed' ? batch : null;
    });
    expect(done).toMatchObject({ processedCount: 30, acceptedCount: 30, rejectedCount: 0 });
    const stored = await h.rows<{ point_id: string; n: number }>(
      `SELECT point_id, count(*)::int AS n FROM monitoring_data.data_records WHERE batch_id = $1 GROUP BY 1 ORDER BY 2`,
      [created.id],
    );
    expect(stored.map((r) => r.n)).toEqual([15, 15]);
    expect(new Set(stored.map((r) => r.point_id))).toEqual(new Set([a, b]));
  });

  it('refuses a batch for a project that does not take data at once', async () => {
    const archived = await h.project({ status: 'archived' });
    const err = await h.data
      .createBatch(
        { projectId: archived.id, records: columns([{ point_id: archived.points[0]!.id, measured_at: '2026-03-01T00:00:00Z', values: { dz: 1 } }]) },
        h.caller,
      )
      .catch((e: DomainError) => e);
    expect(err).toMatchObject({ code: '422301', field: 'project_id' });
    expect(await h.rows('SELECT id FROM monitoring_data.batches WHERE project_id = $1', [archived.id])).toEqual([]);
  });

  it('runs as several replicas on one database: concurrent writes creating the same new month partition all succeed', async () => {
    const other = await h.replica();
    const writes = Array.from({ length: 6 }, (_, i) =>
      (i % 2 ? other : h.data).writeRecords(
        { projectId: p.id, records: columns([{ point_id: i % 3 ? a : b, measured_at: `2026-07-0${i + 1}T00:00:00Z`, values: { dz: 1 } }]) },
        h.caller,
      ),
    );
    expect((await Promise.all(writes)).map((r) => r.totalCount)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(await h.rows(`SELECT to_regclass('monitoring_data.data_records_p202607')::text AS t`)).toEqual([{ t: 'monitoring_data.data_records_p202607' }]);
  });

  it('with a context TTL of 0 a project status change applies to the very next write', async () => {
    const fresh = await h.replica({ contextTtlMs: 0 });
    const q = await h.project();
    const rec = (d: number) => columns([{ point_id: q.points[0]!.id, measured_at: `2026-03-0${d}T00:00:00Z`, values: { dz: 1 } }]);
    expect((await fresh.writeRecords({ projectId: q.id, records: rec(1) }, h.caller)).totalCount).toBe(1);
    await h.projects.changeProjectStatus({ id: q.id, status: 'completed' }, h.caller);
    await h.projects.changeProjectStatus({ id: q.id, status: 'archived' }, h.caller);
    await expect(fresh.writeRecords({ projectId: q.id, records: rec(2) }, h.caller)).rejects.toMatchObject({ code: '422301', field: 'project_id' });
  });
});
