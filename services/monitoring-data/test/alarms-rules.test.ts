import type { Clock } from '@mp/kit';
import { columns, startHarness, type Harness, type RecordIn } from './harness.js';

// Alarms (ADR 0024) at the service: alarms opened, escalated, updated and cleared by the readings in
// the write's transaction (threshold and rate rules), and the scheduled stale-data check, on real
// PostgreSQL with two replicas on one database.

interface AlarmRow {
  id: string;
  point_id: string;
  rule: string;
  level: string;
  status: string;
  reason: string;
  reading_count: number;
  normal_count: number;
  last_data_id: string | null;
  cleared_by: string | null;
}
const alarmsOf = (h: Harness, pointId?: string) =>
  h.rows<AlarmRow>(
    `SELECT id, point_id, rule, level, status, reason, reading_count, normal_count, last_data_id, cleared_by FROM monitoring_data.alarms ${pointId ? 'WHERE point_id = $1' : ''} ORDER BY opened_at, id`,
    pointId ? [pointId] : [],
  );
const historyOf = (h: Harness, alarmId: string) =>
  h
    .rows<{ action: string; level: string; status: string }>(
      'SELECT action, level, status FROM monitoring_data.alarm_history WHERE alarm_id = $1 ORDER BY seq',
      [alarmId],
    )
    .then((r) => r.map((x) => `${x.action}:${x.level}:${x.status}`));

/** A clock the test moves by hand. */
const handClock = (iso: string) => {
  let t = Date.parse(iso);
  const clock: Clock & { set(iso: string): void } = { now: () => new Date(t), set: (v) => (t = Date.parse(v)) };
  return clock;
};

describe('threshold alarms in the write transaction', () => {
  let h: Harness;
  let pt: string;
  const write = (records: RecordIn[], client = h.data) => client.writeRecords({ projectId: p.id, records: columns(records) }, h.caller);
  let p: Awaited<ReturnType<Harness['project']>>;
  const at = (day: number, hour = 8) => `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;

  beforeAll(async () => {
    h = await startHarness();
    p = await h.project({ name: 'Dam crest', points: [{ name: 'CR-01', number: 'CR-01' }] });
    pt = p.points[0]!.id;
  });
  afterAll(() => h?.stop());

  it('opens one alarm at the first breaking reading, escalates it, updates it without duplicating, and clears it after 3 readings back to normal', async () => {
    await write([{ point_id: pt, measured_at: at(1), values: { dz: 2 } }]);
    expect(await alarmsOf(h)).toEqual([]);
    const first = await write([{ point_id: pt, measured_at: at(2), values: { dz: -12 } }]);
    let [alarm] = await alarmsOf(h);
    expect(alarm).toMatchObject({ point_id: pt, rule: 'threshold', level: 'warning', status: 'open', reading_count: 1, last_data_id: first.dataId[0] });
    expect(alarm!.reason).toBe('threshold: dz -12 mm reached the warning threshold of 10 mm');
    const second = await write([{ point_id: pt, measured_at: at(3), values: { dz: -24.5 } }]);
    await write([
      { point_id: pt, measured_at: at(4), values: { dz: -15 } },
      { point_id: pt, measured_at: at(4, 9), values: { dz: 1 } },
      { point_id: pt, measured_at: at(4, 10), values: { dz: 1 } },
    ]);
    const all = await alarmsOf(h);
    expect(all).toHaveLength(1);
    alarm = all[0]!;
    // escalated to alarm, never back down to warning; two readings back to normal counted so far
    expect(alarm).toMatchObject({ level: 'alarm', status: 'open', reading_count: 3, normal_count: 2 });
    expect(second.status).toEqual(['alarm']);
    expect(await historyOf(h, alarm.id)).toEqual(['opened:warning:open', 'escalated:alarm:open']);
    const third = await write([{ point_id: pt, measured_at: at(5), values: { dz: 0.5 } }]);
    [alarm] = await alarmsOf(h);
    expect(alarm).toMatchObject({ status: 'cleared', cleared_by: null, normal_count: 3 });
    expect(await historyOf(h, alarm!.id)).toEqual(['opened:warning:open', 'escalated:alarm:open', 'cleared:alarm:cleared']);
    const cleared = (await h.outbox()).filter((e) => e.event_type === 'alarm.cleared');
    expect(cleared.map((e) => e.data)).toEqual([
      {
        alarm_id: alarm!.id,
        project_id: p.id,
        point_id: pt,
        rule: 'threshold',
        level: 'alarm',
        // the channel whose limit was crossed (docs/instruments.md)
        channel: 'dz',
        status: 'cleared',
        reason: 'threshold: dz -15 mm reached the warning threshold of 10 mm',
        by: null,
        automatic: true,
        comment: null,
        at: expect.any(String),
      },
    ]);
    expect(third.status).toEqual(['normal']);
    // One alarm.opened and one alarm.escalated for the alarm: its transitions, not its readings (ADR 0090).
    const raised = (await h.outbox()).filter((e) => e.event_type === 'alarm.opened' || e.event_type === 'alarm.escalated');
    expect(raised.map((e) => [e.event_type, e.data.level, e.data.value, e.data.measured_at])).toEqual([
      ['alarm.opened', 'warning', 12, '2026-03-02T08:00:00.000Z'],
      ['alarm.escalated', 'alarm', 24.5, '2026-03-03T08:00:00.000Z'],
    ]);
    expect(raised[0]!.data).toMatchObject({
      alarm_id: alarm!.id,
      project_id: p.id,
      project_name: 'Dam crest',
      point_id: pt,
      point_name: 'CR-01',
      channel: 'dz',
      rule: 'threshold',
      status: 'open',
      data_id: first.dataId[0],
      by: null,
      automatic: true,
    });
    // A new breach after the clear is a new alarm.
    await write([{ point_id: pt, measured_at: at(6), values: { dz: 30 } }]);
    const after = await alarmsOf(h);
    expect(after.map((a) => `${a.level}:${a.status}`)).toEqual(['alarm:cleared', 'alarm:open']);
  });

  it('holds one active alarm per point and rule when two replicas write breaking readings at the same moment', async () => {
    const other = await h.replica();
    const q = await h.project({ name: 'Twin writes', points: Array.from({ length: 12 }, (_, i) => ({ name: `TW-${i}`, number: `TW-${i}` })) });
    for (let round = 0; round < 5; round++) {
      const recs = (hour: number, dz: number) =>
        q.points.map((x) => ({ point_id: x.id, measured_at: `2026-03-10T${String(hour).padStart(2, '0')}:00:00Z`, values: { dz } }));
      await Promise.all([
        h.data.writeRecords({ projectId: q.id, records: columns(recs(round * 2, 12)) }, h.caller),
        other.writeRecords({ projectId: q.id, records: columns(recs(round * 2 + 1, 22)) }, h.caller),
      ]);
    }
    const rows = await h.rows<{ point_id: string; n: number; readings: number; level: string }>(
      `SELECT point_id, count(*)::int AS n, sum(reading_count)::int AS readings, string_agg(DISTINCT level, ',') AS level FROM monitoring_data.alarms WHERE project_id = $1 GROUP BY point_id`,
      [q.id],
    );
    expect(rows).toHaveLength(12);
    // one alarm per point, every reading of both replicas counted on it, escalated by the 22 mm ones
    expect(rows.map(({ n, readings, level }) => ({ n, readings, level }))).toEqual(Array.from({ length: 12 }, () => ({ n: 1, readings: 10, level: 'alarm' })));
  });
});

describe('rate-of-change alarms', () => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['project']>>;
  let pt: string;
  const write = (records: RecordIn[]) => h.data.writeRecords({ projectId: p.id, records: columns(records) }, h.caller);

  beforeAll(async () => {
    h = await startHarness({ alarms: { rateWarningMmPerDay: 2, rateAlarmMmPerDay: 5, rateWindowHours: 24, clearAfterReadings: 2 } });
    p = await h.project({ name: 'Tunnel portal', points: [{ name: 'TP-01', number: 'TP-01', warningThreshold: 50, alarmThreshold: 80 }] });
    pt = p.points[0]!.id;
  });
  afterAll(() => h?.stop());

  it('opens a rate alarm with data.abnormal naming the rule, escalates it, and clears it when the rate falls back', async () => {
    await write([{ point_id: pt, measured_at: '2026-03-01T00:00:00Z', values: { dz: 0 } }]);
    // 12 h later: no reading a whole window old yet, nothing judged
    await write([{ point_id: pt, measured_at: '2026-03-01T12:00:00Z', values: { dz: 3 } }]);
    expect(await alarmsOf(h)).toEqual([]);
    const rising = await write([{ point_id: pt, measured_at: '2026-03-02T00:00:00Z', values: { dz: 3.2 } }]);
    let [alarm] = await alarmsOf(h);
    expect(alarm).toMatchObject({ rule: 'rate', level: 'warning', status: 'open', reason: 'rate 3.2 mm/day over 24 h exceeds 2 mm/day (dz, warning)' });
    const abnormal = (await h.outbox()).filter((e) => e.event_type === 'data.abnormal');
    expect(abnormal.map((e) => e.data)).toEqual([
      {
        project_id: p.id,
        project_name: 'Tunnel portal',
        alert_level: 'warning',
        records: [
          {
            data_id: rising.dataId[0],
            point_id: pt,
            point_name: 'TP-01',
            sensor_type: 'total_station',
            measured_at: '2026-03-02T00:00:00Z',
            values: { dz: 3.2 },
            status: 'warning',
            threshold: { warning: 2, alarm: 5 },
            reason: 'rate 3.2 mm/day over 24 h exceeds 2 mm/day (dz, warning)',
          },
        ],
      },
    ]);
    // against the reading 24 h earlier (dz 3 at 12:00): 6 mm in 24 h
    await write([{ point_id: pt, measured_at: '2026-03-02T12:00:00Z', values: { dz: 9 } }]);
    [alarm] = await alarmsOf(h);
    expect(alarm).toMatchObject({ level: 'alarm', reason: 'rate 6 mm/day over 24 h exceeds 5 mm/day (dz, alarm)' });
    expect((await h.outbox()).filter((e) => e.event_type === 'data.abnormal').map((e) => e.data.alert_level)).toEqual(['warning', 'alarm']);
    // flat again for two readings (clearAfterReadings 2): 9 → 9 over 24 h is 0 mm/day
    await write([{ point_id: pt, measured_at: '2026-03-03T12:00:00Z', values: { dz: 9 } }]);
    await write([{ point_id: pt, measured_at: '2026-03-04T12:00:00Z', values: { dz: 9 } }]);
    const rows = await alarmsOf(h);
    expect(rows.map((a) => `${a.rule}:${a.level}:${a.status}`)).toEqual(['rate:alarm:cleared']);
  });
});

describe('stale-data alarms on a schedule, once per point across replicas', () => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['project']>>;
  const clock = handClock('2026-03-01T00:05:00Z');

  beforeAll(async () => {
    h = await startHarness({ clock, alarms: { expectedIntervalSeconds: 3600, staleFactor: 3 } });
    await h.replica();
    p = await h.project({ name: 'Slope array', points: Array.from({ length: 30 }, (_, i) => ({ name: `SA-${i}`, number: `SA-${i}` })) });
  });
  afterAll(() => h?.stop());

  it('judges each due point on one replica only, raises data.abnormal with its last record, escalates, and clears at the next reading', async () => {
    const first = await h.data.writeRecords(
      { projectId: p.id, records: columns(p.points.map((x, i) => ({ point_id: x.id, measured_at: '2026-03-01T00:00:00Z', values: { dz: i / 10 } }))) },
      h.caller,
    );
    const [a, b] = h.services;
    // 2 h 59 min of silence: nothing due yet
    clock.set('2026-03-01T02:59:00Z');
    expect(await Promise.all([a!.staleSweep.runOnce(), b!.staleSweep.runOnce()])).toEqual([0, 0]);
    clock.set('2026-03-01T03:10:00Z');
    const judged = await Promise.all([a!.staleSweep.runOnce(), b!.staleSweep.runOnce()]);
    expect(judged[0]! + judged[1]!).toBe(30);
    // judged already: the next check moved on
    expect(await Promise.all([a!.staleSweep.runOnce(), b!.staleSweep.runOnce()])).toEqual([0, 0]);
    const alarms = await alarmsOf(h);
    expect(alarms).toHaveLength(30);
    expect(new Set(alarms.map((x) => `${x.rule}:${x.level}:${x.status}`))).toEqual(new Set(['stale:warning:open']));
    expect(alarms[0]!.reason).toBe('stale: no reading for 3 h 10 min, expected every 1 h (warning after 3 h)');
    const abnormal = (await h.outbox()).filter((e) => e.event_type === 'data.abnormal');
    expect(abnormal).toHaveLength(30);
    const i = p.points.findIndex((x) => x.id === p.points[7]!.id);
    expect(abnormal.find((e) => e.data.records[0].point_id === p.points[7]!.id)!.data).toEqual({
      project_id: p.id,
      project_name: 'Slope array',
      alert_level: 'warning',
      records: [
        {
          data_id: first.dataId[i],
          point_id: p.points[7]!.id,
          point_name: 'SA-7',
          sensor_type: 'total_station',
          measured_at: '2026-03-01T00:00:00Z',
          values: { dz: 0.7 },
          status: 'warning',
          threshold: { warning: 10, alarm: 20 },
          reason: 'stale: no reading for 3 h 10 min, expected every 1 h (warning after 3 h)',
        },
      ],
    });
    clock.set('2026-03-01T06:30:00Z');
    const again = await Promise.all([a!.staleSweep.runOnce(), b!.staleSweep.runOnce()]);
    expect(again[0]! + again[1]!).toBe(30);
    expect(new Set((await alarmsOf(h)).map((x) => `${x.level}:${x.status}`))).toEqual(new Set(['alarm:open']));
    expect((await h.outbox()).filter((e) => e.event_type === 'data.abnormal')).toHaveLength(60);
    // each point's stale alarm opened once and escalated once, whichever replica judged it
    const raised = (await h.outbox()).filter((e) => e.event_type === 'alarm.opened' || e.event_type === 'alarm.escalated');
    expect(raised.filter((e) => e.event_type === 'alarm.opened')).toHaveLength(30);
    expect(raised.filter((e) => e.event_type === 'alarm.escalated')).toHaveLength(30);
    expect(raised.find((e) => e.event_type === 'alarm.opened' && e.data.point_id === p.points[7]!.id)!.data).toMatchObject({
      rule: 'stale',
      level: 'warning',
      point_name: 'SA-7',
      project_name: 'Slope array',
      value: 11400,
      measured_at: '2026-03-01T00:00:00.000Z',
    });
    // at alarm level nothing more is due
    clock.set('2026-03-02T06:30:00Z');
    expect(await Promise.all([a!.staleSweep.runOnce(), b!.staleSweep.runOnce()])).toEqual([0, 0]);
    // a reading of one point clears its stale alarm by itself
    await h.data.writeRecords(
      { projectId: p.id, records: columns([{ point_id: p.points[7]!.id, measured_at: '2026-03-02T06:00:00Z', values: { dz: 0.8 } }]) },
      h.caller,
    );
    const rows = await alarmsOf(h, p.points[7]!.id);
    expect(rows.map((x) => `${x.rule}:${x.status}`)).toEqual(['stale:cleared']);
    expect((await h.outbox()).filter((e) => e.event_type === 'alarm.cleared').map((e) => e.data.point_id)).toEqual([p.points[7]!.id]);
  });
});

describe("a point's own alarm rules over the operator defaults", () => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['project']>>;
  const write = (records: RecordIn[]) => h.data.writeRecords({ projectId: p.id, records: columns(records) }, h.caller);

  beforeAll(async () => {
    h = await startHarness();
    p = await h.project({
      name: 'Mixed rules',
      points: [
        { name: 'OWN', number: 'OWN', alarmRules: { clearAfterReadings: 1, rateWarningMmPerDay: 1 } },
        { name: 'DEFAULT', number: 'DEFAULT' },
      ],
    });
  });
  afterAll(() => h?.stop());

  it('clears after the point’s own number of readings and applies its rate rule, while the other point keeps the defaults', async () => {
    const [own, dflt] = p.points.map((x) => x.id) as [string, string];
    await write([
      { point_id: own, measured_at: '2026-03-01T00:00:00Z', values: { dz: 0 } },
      { point_id: dflt, measured_at: '2026-03-01T00:00:00Z', values: { dz: 0 } },
    ]);
    await write([
      { point_id: own, measured_at: '2026-03-02T00:00:00Z', values: { dz: 12 } },
      { point_id: dflt, measured_at: '2026-03-02T00:00:00Z', values: { dz: 12 } },
    ]);
    await write([
      { point_id: own, measured_at: '2026-03-03T00:00:00Z', values: { dz: 9.5 } },
      { point_id: dflt, measured_at: '2026-03-03T00:00:00Z', values: { dz: 9.5 } },
    ]);
    const byPoint = async (id: string) => (await alarmsOf(h, id)).map((a) => `${a.rule}:${a.level}:${a.status}`).sort();
    // OWN: one reading back under 10 mm clears its threshold alarm; 12 mm/day then 2.5 mm/day opened its rate alarm
    expect(await byPoint(own)).toEqual(['rate:warning:open', 'threshold:warning:cleared']);
    // DEFAULT: three readings are needed, and no rate rule is configured
    expect(await byPoint(dflt)).toEqual(['threshold:warning:open']);
    const stored = await h.rows<{ alarm_rules: unknown }>('SELECT alarm_rules FROM projects.points WHERE id = $1', [own]);
    expect(stored[0]!.alarm_rules).toEqual({ clearAfterReadings: 1, rateWarningMmPerDay: 1 });
  });
});
