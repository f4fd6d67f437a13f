import type { monitoringData } from '@mp/contracts';
import { recomputeBatch, type BatchContext, type JobRow } from '../src/recompute.js';
import { DEFAULT_ALARM_SETTINGS } from '../src/alarms/settings.js';
import { waitUntil } from '@mp/testing';
import { columns, startHarness, type Harness } from './harness.js';

// The recomputation after a back-dated calibration (ADR 0116) at the service's gRPC surface, with
// a real projects service and PostgreSQL: bounded batches, statuses and rollups recounted, the
// job's progress, and the guard that keeps a worker whose lease expired from repeating a batch.
describe('recomputation of stored readings after a new calibration', () => {
  let h: Harness;
  beforeAll(async () => {
    // two readings per transaction, so the five readings from valid_from on take three
    h = await startHarness({ recomputeBatch: 2 });
  });
  afterAll(() => h?.stop());

  /** Piezometer readings in the contract's columns: the frequency channel (and temperature when given). */
  const readings = (pointId: string, list: { at: string; frequency: number; temperature?: number }[]): monitoringData.RecordColumns =>
    columns(
      list.map((r) => ({
        point_id: pointId,
        measured_at: r.at,
        values: {},
        channels: { frequency: r.frequency, ...(r.temperature !== undefined ? { temperature: r.temperature } : {}) },
      })),
    );

  it('recomputes from valid_from on in bounded batches, statuses and rollups included, and records its progress', async () => {
    const p = await h.project({
      points: [
        {
          number: 'PZ-1',
          name: 'Piezometer',
          sensorType: 'piezometer',
          warningThreshold: 0,
          alarmThreshold: 0,
          triggerLevels: { items: [{ level: 'alarm', channel: 'pore_pressure', above: 170 }] },
          // a short name: jsonb keeps it first, the computation adds it last
          derivedChannels: { items: [{ name: 'h', unit: 'm', expression: 'pore_pressure / 10' }] },
          calibration: { method: 'vibrating_wire', gaugeFactor: -0.25, zeroReading: 8000 },
        },
      ],
    });
    const pt = p.points[0]!;
    const at = (day: number) => `2026-03-0${day}T10:00:00Z`;
    // 2700 Hz → 7290 digits → −0.25 · (7290 − 8000) = 177.5 kPa: over the alarm level
    const res = await h.data.writeRecords(
      {
        projectId: p.id,
        records: readings(
          pt.id,
          [1, 2, 3, 4, 5, 6, 7].map((d) => ({ at: at(d), frequency: 2700, temperature: 11 })),
        ),
      },
      h.caller,
    );
    expect(res.status).toEqual(Array(7).fill('alarm'));
    // From day 3: R₀ = 7800 → −0.25 · (7290 − 7800) = 127.5 kPa, normal.
    const cal = await h.projects.addCalibration(
      { pointId: pt.id, calibration: { method: 'vibrating_wire', gaugeFactor: -0.25, zeroReading: 7800, validFrom: '2026-03-03T00:00:00Z' } },
      h.caller,
    );
    expect(cal).toMatchObject({
      method: 'vibrating_wire',
      zeroReading: 7800,
      rawChannel: 'frequency',
      channel: 'pore_pressure',
      createdBy: h.caller.principalId,
    });

    let state: monitoringData.RecomputeState | undefined;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      state = (await h.data.getRecomputeStates({ pointId: pt.id, calibrationIds: [cal.id] }, h.caller)).items[0];
      if (state?.status === 'done') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(state).toMatchObject({ calibrationId: cal.id, status: 'done', records: 5, changed: 5 });
    expect(state!.startedAt).toBeDefined();
    expect(state!.finishedAt).toBeDefined();

    const rows = await h.rows<{ measured_at: Date; channels: Record<string, number>; status: string; version: number }>(
      'SELECT measured_at, channels, status, version FROM monitoring_data.data_records WHERE point_id = $1 ORDER BY measured_at',
      [pt.id],
    );
    expect(rows[2]!.channels).toEqual({ frequency: 2700, temperature: 11, pore_pressure: 127.5, h: 12.75 });
    expect(rows.map((r) => [r.channels.pore_pressure, r.status, r.version])).toEqual([
      [177.5, 'alarm', 1],
      [177.5, 'alarm', 1],
      [127.5, 'normal', 2],
      [127.5, 'normal', 2],
      [127.5, 'normal', 2],
      [127.5, 'normal', 2],
      [127.5, 'normal', 2],
    ]);
    // batches of two (three transactions: 2, 2, 1): the cursor stopped at the last reading
    const job = await h.rows<{ cursor_at: Date; created_by: string; records: number }>(
      'SELECT cursor_at, created_by, records FROM monitoring_data.recompute_jobs WHERE id = $1',
      [cal.id],
    );
    expect(job[0]).toMatchObject({ created_by: h.caller.principalId, records: 5 });
    expect(new Date(job[0]!.cursor_at).toISOString()).toBe('2026-03-07T10:00:00.000Z');
    // the day rollup counts the statuses as they are now: two alarms (days 1 and 2), once folded
    const rollups = await h.rows<{ alarm_count: number; count: number }>(
      `SELECT sum(alarm_count)::int AS alarm_count, sum(count)::int AS count FROM (
         SELECT alarm_count, count FROM monitoring_data.data_rollups WHERE point_id = $1 AND bucket_seconds = 3600
         UNION ALL SELECT alarm_count, count FROM monitoring_data.data_rollup_deltas WHERE point_id = $1 AND bucket_seconds = 3600) r`,
      [pt.id],
    );
    expect(rollups[0]).toEqual({ alarm_count: 2, count: 7 });

    // A calibration from day 6 that gives the same values: its recomputation reads two readings
    // and rewrites none of them.
    const same = await h.projects.addCalibration(
      { pointId: pt.id, calibration: { method: 'vibrating_wire', gaugeFactor: -0.25, zeroReading: 7800, validFrom: '2026-03-06T00:00:00Z' } },
      h.caller,
    );
    await waitUntil(async () => (await h.data.getRecomputeStates({ pointId: pt.id, calibrationIds: [same.id] }, h.caller)).items[0]?.status === 'done', {
      timeoutMs: 30_000,
    });
    expect((await h.data.getRecomputeStates({ pointId: pt.id, calibrationIds: [same.id] }, h.caller)).items[0]).toMatchObject({ records: 2, changed: 0 });
    expect(
      (await h.rows<{ version: number }>('SELECT version FROM monitoring_data.data_records WHERE point_id = $1 ORDER BY measured_at', [pt.id])).map(
        (r) => r.version,
      ),
    ).toEqual([1, 1, 2, 2, 2, 2, 2]);

    // A worker whose lease expired and that kept an older cursor finds other progress under the
    // row lock and does nothing (the job is made unfinished again, its lease held away from the
    // replica's worker; run, the batch would strip every channel of a point without settings).
    await h.rows(`UPDATE monitoring_data.recompute_jobs SET status = 'running', lease_until = now() + interval '1 hour' WHERE id = $1`, [cal.id]);
    const [stale] = await h.rows<JobRow>('SELECT * FROM monitoring_data.recompute_jobs WHERE id = $1', [cal.id]);
    const before = await h.rows('SELECT id, channels, version FROM monitoring_data.data_records WHERE point_id = $1 ORDER BY measured_at', [pt.id]);
    const bare = { triggerLevels: [], conversion: null, calibrations: [], derived: [] } as unknown as BatchContext['point'];
    const project = { id: p.id, name: 'Tunnel', status: 'in_progress', startDate: null };
    expect(
      await recomputeBatch({ db: h.dataDb, alarms: DEFAULT_ALARM_SETTINGS, project, point: bare }, { ...stale!, cursor_at: new Date(at(4)) }, new Date()),
    ).toBe(true);
    expect(await h.rows('SELECT id, channels, version FROM monitoring_data.data_records WHERE point_id = $1 ORDER BY measured_at', [pt.id])).toEqual(before);
    expect((await h.rows<{ records: number }>('SELECT records FROM monitoring_data.recompute_jobs WHERE id = $1', [cal.id]))[0]!.records).toBe(5);
  });

  it('refuses a recomputation state request for a point the caller cannot see, and a malformed point id', async () => {
    await expect(h.data.getRecomputeStates({ pointId: 'pt_x', calibrationIds: [] }, h.caller)).rejects.toMatchObject({ code: '400004' });
    await expect(h.data.getRecomputeStates({ pointId: 'pt_00000000000000000000', calibrationIds: [] }, h.caller)).rejects.toMatchObject({ code: '404003' });
  });
});
