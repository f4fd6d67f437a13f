import type { monitoringData, projects } from '@mp/contracts';
import { dataAbnormalPayload, dataUpdatedPayload } from '@mp/events';
import { waitUntil } from '@mp/testing';
import { columns, startHarness, type Harness } from './harness.js';

// What a recomputation does to alarms (ADR 0116, "Alarms") and the recomputation a change of a
// point's derived channels schedules (ADR 0117), with a real projects service and PostgreSQL:
// the stored alarm rows and history, and the events in the outbox.
describe('alarms and events of a recomputation', () => {
  let h: Harness;
  beforeAll(async () => {
    // two readings per transaction: every span below takes several batches
    h = await startHarness({ recomputeBatch: 2 });
  });
  afterAll(() => h?.stop());

  interface AlarmRowOut {
    id: string;
    rule: string;
    level: string;
    status: string;
    channel: string | null;
    first_data_id: string;
    first_measured_at: Date;
    opening_count: number;
    reading_count: number;
    normal_count: number;
  }

  const at = (day: number) => `2026-03-${String(day).padStart(2, '0')}T10:00:00Z`;

  /** Piezometer readings of one frequency each, in the contract's columns. */
  const readings = (pointId: string, list: { at: string; frequency: number }[]): monitoringData.RecordColumns =>
    columns(list.map((r) => ({ point_id: pointId, measured_at: r.at, values: {}, channels: { frequency: r.frequency } })));

  /** A piezometer: 2700 Hz is 7290 digits; with R₀ = 7800 that is 127.5 kPa, with R₀ = 8000 177.5 kPa (alarm above 170). */
  const piezometer = async (zeroReading: number, extra: Partial<projects.CreatePointRequest> = {}) => {
    const p = await h.project({
      points: [
        {
          number: 'PZ-1',
          name: 'Piezometer PZ-1',
          sensorType: 'piezometer',
          warningThreshold: 0,
          alarmThreshold: 0,
          triggerLevels: {
            items: [
              { level: 'warning', channel: 'pore_pressure', above: 150 },
              { level: 'alarm', channel: 'pore_pressure', above: 170 },
            ],
          },
          calibration: { method: 'vibrating_wire', gaugeFactor: -0.25, zeroReading },
          ...extra,
        },
      ],
    });
    return { project: p, pt: p.points[0]!.id };
  };

  const write = (projectId: string, pt: string, days: number[]) =>
    h.data.writeRecords(
      {
        projectId,
        records: readings(
          pt,
          days.map((d) => ({ at: at(d), frequency: 2700 })),
        ),
      },
      h.caller,
    );

  const calibrate = (pt: string, zeroReading: number, validFrom: string) =>
    h.projects.addCalibration({ pointId: pt, calibration: { method: 'vibrating_wire', gaugeFactor: -0.25, zeroReading, validFrom } }, h.caller);

  const finished = async (pt: string, id: string) => {
    await waitUntil(async () => (await h.data.listRecomputations({ pointId: pt }, h.caller)).items.find((j) => j.id === id)?.status === 'done', {
      timeoutMs: 30_000,
    });
  };

  const alarms = (pt: string) =>
    h.rows<AlarmRowOut>(
      `SELECT id, rule, level, status, channel, first_data_id, first_measured_at, opening_count, reading_count, normal_count
         FROM monitoring_data.alarms WHERE point_id = $1 ORDER BY opened_at, id`,
      [pt],
    );

  /** The point's events in the outbox, in order (alarm events name the point; data events hold its records). */
  const eventsOf = async (pt: string) =>
    (await h.outbox()).filter((e) => e.data.point_id === pt || (Array.isArray(e.data.records) && e.data.records.some((r: any) => r.point_id === pt)));

  const ids = async (pt: string) =>
    (await h.rows<{ id: string }>('SELECT id FROM monitoring_data.data_records WHERE point_id = $1 ORDER BY measured_at', [pt])).map((r) => r.id);

  it('a calibration that puts readings over a level opens one alarm, with the first crossing, and sends its events once', async () => {
    const { project, pt } = await piezometer(7800);
    await write(project.id, pt, [1, 2, 3, 4, 5, 6, 7]);
    expect(await alarms(pt)).toEqual([]);
    const before = (await eventsOf(pt)).length;

    // from day 3 the readings are 177.5 kPa: over the alarm level
    const cal = await calibrate(pt, 8000, '2026-03-03T00:00:00Z');
    await finished(pt, cal.id);

    const list = await alarms(pt);
    const rowIds = await ids(pt);
    expect(list).toHaveLength(1);
    // five readings over the level, in three batches (2, 2, 1): one run, counted whole
    expect(list[0]).toMatchObject({
      rule: 'threshold',
      level: 'alarm',
      status: 'open',
      channel: 'pore_pressure',
      first_data_id: rowIds[2],
      opening_count: 5,
      normal_count: 0,
    });
    expect(new Date(list[0]!.first_measured_at).toISOString()).toBe('2026-03-03T10:00:00.000Z');

    const events = (await eventsOf(pt)).slice(before);
    const types = events.map((e) => e.event_type);
    expect(types.filter((t) => t === 'alarm.opened')).toHaveLength(1);
    expect(types.filter((t) => t.startsWith('alarm.') && t !== 'alarm.opened')).toEqual([]);
    const opened = events.find((e) => e.event_type === 'alarm.opened')!.data;
    expect(opened).toMatchObject({ alarm_id: list[0]!.id, point_id: pt, level: 'alarm', channel: 'pore_pressure', rule: 'threshold', automatic: true });
    // the payloads are the published shapes (DataUpdatedPayload, DataAbnormalPayload)
    for (const e of events.filter((x) => x.event_type === 'data.updated')) dataUpdatedPayload.parse(e.data);
    for (const e of events.filter((x) => x.event_type === 'data.abnormal')) dataAbnormalPayload.parse(e.data);
    // data.updated: the five recomputed records once each, as they are now
    const updated = events.filter((e) => e.event_type === 'data.updated').flatMap((e) => e.data.records);
    expect(updated.map((r: any) => r.data_id)).toEqual(rowIds.slice(2));
    expect(updated.every((r: any) => r.values.pore_pressure === 177.5 && r.status === 'alarm')).toBe(true);
    // data.abnormal: the five readings newly over the level, once each
    const abnormal = events.filter((e) => e.event_type === 'data.abnormal').flatMap((e) => e.data.records);
    expect(abnormal.map((r: any) => [r.data_id, r.level, r.channel])).toEqual(rowIds.slice(2).map((id) => [id, 'alarm', 'pore_pressure']));
    // the job says who caused it
    const job = (await h.data.listRecomputations({ pointId: pt }, h.caller)).items[0]!;
    expect(job).toMatchObject({ id: cal.id, calibrationId: cal.id, cause: 'calibration', requestedBy: h.caller.principalId, records: 5, changed: 5 });
  });

  it('a calibration that brings the readings back under the levels clears the alarm they had opened, once', async () => {
    const { project, pt } = await piezometer(8000);
    await write(project.id, pt, [1, 2, 3, 4, 5]);
    const [open] = await alarms(pt);
    expect(open).toMatchObject({ status: 'open', level: 'alarm', opening_count: 5 });
    const before = (await eventsOf(pt)).length;

    // from day 1: every reading is 127.5 kPa, none over a level
    const cal = await calibrate(pt, 7800, '2026-03-01T00:00:00Z');
    await finished(pt, cal.id);

    const list = await alarms(pt);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: open!.id, status: 'cleared' });
    const events = (await eventsOf(pt)).slice(before);
    expect(events.filter((e) => e.event_type.startsWith('alarm.')).map((e) => [e.event_type, e.data.alarm_id, e.data.automatic])).toEqual([
      ['alarm.cleared', open!.id, true],
    ]);
    expect(events.filter((e) => e.event_type === 'data.abnormal')).toEqual([]);
    const history = await h.rows<{ action: string; reason: string }>(
      'SELECT action, reason FROM monitoring_data.alarm_history WHERE alarm_id = $1 ORDER BY at',
      [open!.id],
    );
    expect(history.map((x) => x.action)).toEqual(['opened', 'cleared']);
  });

  it('an alarm opened before the span is cleared after clear_after_readings recomputed readings within the limits, not before', async () => {
    const { project, pt } = await piezometer(8000);
    await write(project.id, pt, [1, 2, 3, 4]);
    const [open] = await alarms(pt);
    // from day 3: days 3 and 4 back within the limits, two readings of the three that clear it
    const first = await calibrate(pt, 7800, '2026-03-03T00:00:00Z');
    await finished(pt, first.id);
    expect(await alarms(pt)).toEqual([expect.objectContaining({ id: open!.id, status: 'open', normal_count: 2 })]);
    // the third, written with the new calibration, clears it through the write's own rules
    await write(project.id, pt, [5]);
    expect(await alarms(pt)).toEqual([expect.objectContaining({ id: open!.id, status: 'cleared' })]);
  });

  it('an alarm the span had opened is taken over by the recomputed crossing: its first crossing moves, its level rises once, no second alarm', async () => {
    // R₀ = 7950: 2800 Hz → 7840 digits → 27.5 kPa, 2750 Hz → 7562.5 → 96.875 kPa (normal), 2700 Hz → 7290 → 165 kPa (warning)
    const { project, pt } = await piezometer(7950);
    const frequencies = [2800, 2750, 2700, 2700, 2700];
    await h.data.writeRecords(
      {
        projectId: project.id,
        records: readings(
          pt,
          frequencies.map((f, i) => ({ at: at(i + 1), frequency: f })),
        ),
      },
      h.caller,
    );
    const [open] = await alarms(pt);
    expect(open).toMatchObject({ level: 'warning', status: 'open', opening_count: 3 });
    expect(new Date(open!.first_measured_at).toISOString()).toBe('2026-03-03T10:00:00.000Z');
    const before = (await eventsOf(pt)).length;

    // R₀ = 8400 from day 1: 27.5 → −0.25 · (7840 − 8400) = 140 kPa (normal); 2750 Hz → 209.375 kPa and 2700 Hz → 277.5 kPa (alarm)
    const cal = await calibrate(pt, 8400, '2026-03-01T00:00:00Z');
    await finished(pt, cal.id);

    const list = await alarms(pt);
    const rowIds = await ids(pt);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: open!.id, level: 'alarm', status: 'open', channel: 'pore_pressure', first_data_id: rowIds[1], opening_count: 4 });
    expect(new Date(list[0]!.first_measured_at).toISOString()).toBe('2026-03-02T10:00:00.000Z');
    const events = (await eventsOf(pt)).slice(before).filter((e) => e.event_type.startsWith('alarm.'));
    expect(events.map((e) => [e.event_type, e.data.alarm_id, e.data.level])).toEqual([['alarm.escalated', open!.id, 'alarm']]);
  });

  it('a change of derived channels recomputes the stored derived values, statuses and rollups, and records who made it', async () => {
    const { project, pt } = await piezometer(7800, { derivedChannels: { items: [{ name: 'head', unit: 'm', expression: 'pore_pressure / 10' }] } });
    await write(project.id, pt, [1, 2, 3]);
    const heads = async () =>
      (
        await h.rows<{ channels: Record<string, number> }>('SELECT channels FROM monitoring_data.data_records WHERE point_id = $1 ORDER BY measured_at', [pt])
      ).map((r) => r.channels.head);
    expect(await heads()).toEqual([12.75, 12.75, 12.75]);

    // the head in metres of water, and a warning level on it the new values cross
    await h.projects.updatePoint(
      {
        id: pt,
        derivedChannels: { items: [{ name: 'head', unit: 'm', expression: 'pore_pressure / 9.81 + 1' }] },
        triggerLevels: { items: [{ level: 'warning', channel: 'head', above: 13 }] },
        clear: [],
      },
      h.caller,
    );
    const jobs = (await h.data.listRecomputations({ pointId: pt }, h.caller)).items;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ cause: 'derived_channels', calibrationId: '', requestedBy: h.caller.principalId, from: '1970-01-01T00:00:00.000Z' });
    await finished(pt, jobs[0]!.id);

    const expected = 127.5 / 9.81 + 1;
    expect((await heads()).map((v) => v.toFixed(6))).toEqual(Array(3).fill(expected.toFixed(6)));
    const statuses = await h.rows<{ status: string }>('SELECT status FROM monitoring_data.data_records WHERE point_id = $1', [pt]);
    expect(statuses.map((s) => s.status)).toEqual(['warning', 'warning', 'warning']);
    // the hour rollups of the derived channel hold the new values (folded and pending deltas together)
    const rollup = await h.rows<{ max: number; n: number }>(
      `SELECT max(max) AS max, sum(n)::int AS n FROM (
         SELECT max, n FROM monitoring_data.data_channel_rollups WHERE point_id = $1 AND channel = 'head' AND bucket_seconds = 3600
         UNION ALL SELECT max, n FROM monitoring_data.data_channel_rollup_deltas WHERE point_id = $1 AND channel = 'head' AND bucket_seconds = 3600) r`,
      [pt],
    );
    expect(rollup[0]!.n).toBe(3);
    expect(rollup[0]!.max.toFixed(6)).toBe(expected.toFixed(6));
    // one warning alarm on the derived channel, opened once
    expect(await alarms(pt)).toEqual([expect.objectContaining({ level: 'warning', channel: 'head', status: 'open', opening_count: 3 })]);
    expect((await eventsOf(pt)).filter((e) => e.event_type === 'alarm.opened')).toHaveLength(1);

    // a change of the unit only changes no stored value: no recomputation
    await h.projects.updatePoint(
      { id: pt, derivedChannels: { items: [{ name: 'head', unit: 'mH2O', expression: 'pore_pressure / 9.81 + 1' }] }, clear: [] },
      h.caller,
    );
    expect((await h.data.listRecomputations({ pointId: pt }, h.caller)).items).toHaveLength(1);
  });

  it('writes during a recomputation leave exactly one active alarm of the point, opened once', async () => {
    const { project, pt } = await piezometer(7800);
    const days = Array.from({ length: 24 }, (_, i) => i + 1);
    await write(project.id, pt, days);
    const cal = await calibrate(pt, 8000, '2026-03-01T00:00:00Z');
    // new readings over the level written while the job runs (24 readings, 12 transactions)
    const later = [25, 26, 27, 28, 29, 30];
    await Promise.all(later.map((d) => write(project.id, pt, [d])));
    await finished(pt, cal.id);

    const list = await alarms(pt);
    expect(list.filter((a) => a.status !== 'cleared')).toHaveLength(1);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ level: 'alarm', channel: 'pore_pressure', status: 'open' });
    expect(new Date(list[0]!.first_measured_at).toISOString()).toBe('2026-03-01T10:00:00.000Z');
    const types = (await eventsOf(pt)).map((e) => e.event_type);
    expect(types.filter((t) => t === 'alarm.opened')).toHaveLength(1);
    expect(types.filter((t) => t === 'alarm.cleared')).toHaveLength(0);
    const statuses = await h.rows<{ status: string }>('SELECT DISTINCT status FROM monitoring_data.data_records WHERE point_id = $1', [pt]);
    expect(statuses).toEqual([{ status: 'alarm' }]);
  });
});
