import { createdRecord, dataCreatedBytes, formatAll, numberJson, type EventRecord } from '../src/events.js';
import type { PointInfo, ProjectInfo } from '../src/ingest-context.js';
import type { CheckedRecord } from '../src/record-rules.js';

// data.created is written as text without building objects (events.ts); it must be exactly the
// text JSON.stringify gives for the data.created payload, names that need escaping included.
describe('data.created written directly as JSON', () => {
  const project: ProjectInfo = { id: 'prj_00000000000000000001', name: 'Tunnel "Nord" \\ Ü\u2028', status: 'in_progress', startDate: null };
  const point = (id: string, name: string, sensorType = 'total_station'): PointInfo => ({
    id,
    projectId: project.id,
    name,
    sensorType,
    ref: { x: 0, y: 0, z: 0 },
    warning: 10,
    alarm: 20,
    abruptLimit: null,
    precision: null,
    active: true,
    triggerLevels: [],
    conversion: null,
    calibrations: [],
    derived: [],
  });
  const p1 = point('pt_00000000000000000001', 'JC-01 "west"\n');
  const p2 = point('pt_00000000000000000002', 'Ebene ✓', 'level');
  const rec = (
    p: PointInfo,
    ms: number,
    offset: number,
    v: Partial<Record<'x' | 'y' | 'z' | 'dx' | 'dy' | 'dz', number>>,
    status: CheckedRecord['status'],
  ): CheckedRecord => ({
    index: 0,
    point: p,
    ms,
    offset,
    x: v.x ?? null,
    y: v.y ?? null,
    z: v.z ?? null,
    dx: v.dx ?? null,
    dy: v.dy ?? null,
    dz: v.dz ?? null,
    channels: null,
    channel: null,
    status,
  });

  it('is the same text as JSON.stringify of the payload object, with each instant formatted once per distinct value', () => {
    const records = [
      rec(p1, Date.UTC(2026, 2, 1, 0, 30), 480, { x: 3512345.101, y: 512345.602, z: 45.297, dx: 1, dy: 2, dz: -3 }, 'normal'),
      rec(p2, Date.UTC(2026, 2, 1, 0, 30), 0, { dz: -10 }, 'warning'),
      rec(p1, Date.UTC(2026, 2, 1, 14, 0, 0, 250), -210, { dx: 0, dy: -0, dz: -25.5e-7 }, 'alarm'),
      rec(p2, Date.UTC(2026, 2, 1, 0, 30), 0, { z: 1e21, dz: 123456.789 }, 'normal'),
    ];
    const ids = ['dat_a', 'dat_b', 'dat_c', 'dat_d'];
    const measuredAt = formatAll(records);
    expect(measuredAt).toEqual(['2026-03-01T08:30:00+08:00', '2026-03-01T00:30:00Z', '2026-03-01T10:30:00.250-03:30', '2026-03-01T00:30:00Z']);
    const asObjects: EventRecord[] = records.map((r, i) => ({ ...r, id: ids[i]!, qualityFlag: 'valid' }));
    const { bytes, abnormalCount } = dataCreatedBytes(project, records, ids, measuredAt);
    const json = bytes.toString('utf8');
    // The data.created payload as an object, the way JSON.stringify would write it.
    const payload = { project_id: project.id, project_name: project.name, records: asObjects.map(createdRecord), total_count: 4, abnormal_count: 2 };
    expect(json).toBe(JSON.stringify(payload));
    expect(abnormalCount).toBe(2);
    expect(JSON.parse(json).records[0]).toEqual({
      data_id: 'dat_a',
      point_id: p1.id,
      point_name: 'JC-01 "west"\n',
      sensor_type: 'total_station',
      measured_at: '2026-03-01T08:30:00+08:00',
      values: { x: 3512345.101, y: 512345.602, z: 45.297, dx: 1, dy: 2, dz: -3 },
      status: 'normal',
      quality_flag: 'valid',
    });
  });
});

describe('numbers in the event text', () => {
  it('writes every number as String() does: random values with 0 to 9 decimals, signs and edges', () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      1e-6,
      -1e-6,
      5e-7,
      1.5e-6,
      0.1,
      0.2 + 0.1,
      2.675,
      999999999.999999,
      -999999999.999999,
      1e9,
      1e9 + 0.5,
      123456789.123456,
      3512345.105,
      45.302691,
      1e21,
      2 ** 53,
      -(2 ** 31),
      0.000001,
      0.0000015,
    ];
    for (const v of edges) expect(numberJson(v)).toBe(String(v));
    for (let n = 0; n < 200_000; n++) {
      const decimals = n % 10;
      const magnitude = 10 ** ((n >> 4) % 10);
      const v = Math.round((Math.random() - 0.5) * 2 * magnitude * 10 ** decimals) / 10 ** decimals;
      if (numberJson(v) !== String(v)) throw new Error(`numberJson(${String(v)}) = ${numberJson(v)}`);
      const derived = Math.round((v - 3512345.1) * 1000 * 1e6) / 1e6;
      if (numberJson(derived) !== String(derived)) throw new Error(`numberJson(${String(derived)}) = ${numberJson(derived)}`);
    }
  });
});
