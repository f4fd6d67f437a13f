import { SENSOR_TYPES } from '@mp/contracts';
import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Instruments (docs/instruments.md) through the HTTPS gateway: the sensor types with their channels and units, points of
// instruments without coordinates, records holding their type's channels, trigger levels, dated
// calibrations that convert raw readings (and recompute them), derived channels and per-channel
// series, with hand-computed values.
describe('instruments through the gateway', () => {
  let t: TestPlatform;
  let key: string;
  const h = (k = key) => ({ 'x-api-key': k });

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write', 'data:read', 'data:write']);
  });
  afterAll(() => t?.stop());

  describe('GET /sensor-types', () => {
    it('lists every type with its channels, units, kinds, ranges and primary channel', async () => {
      const res = await t.api('GET', '/sensor-types', { headers: h() });
      expect(res.status).toBe(200);
      const items = res.body.data.items as { id: string; primary_channel: string; geodetic: boolean; channels: Record<string, unknown>[] }[];
      expect(items.map((i) => i.id)).toEqual([...SENSOR_TYPES]);
      for (const id of ['load_cell', 'rain_gauge', 'thermometer']) expect(items.map((i) => i.id)).toContain(id);
      const piezometer = items.find((i) => i.id === 'piezometer')!;
      expect(piezometer.primary_channel).toBe('pore_pressure');
      expect(piezometer.geodetic).toBe(false);
      expect(piezometer.channels).toEqual([
        {
          name: 'pore_pressure',
          unit: 'kPa',
          quantity: 'pore water pressure',
          kind: 'measured',
          primary: true,
          range: { min: -200, max: 20000 },
          converted_from: 'frequency',
        },
        { name: 'frequency', unit: 'Hz', quantity: 'frequency', kind: 'raw', primary: false, range: { min: 100, max: 10000 }, converted_from: null },
        { name: 'temperature', unit: '°C', quantity: 'temperature', kind: 'measured', primary: false, range: { min: -60, max: 150 }, converted_from: null },
      ]);
      expect(items.find((i) => i.id === 'water_level_gauge')!.channels[0]).toMatchObject({ name: 'water_level', unit: 'm' });
      expect(items.find((i) => i.id === 'crack_meter')!.channels[0]).toMatchObject({ name: 'crack_width', unit: 'mm' });
      const ts = items.find((i) => i.id === 'total_station')!;
      expect(ts.geodetic).toBe(true);
      expect(ts.channels.map((c) => [c.name, c.unit])).toEqual([
        ['x', 'm'],
        ['y', 'm'],
        ['z', 'm'],
        ['dx', 'mm'],
        ['dy', 'mm'],
        ['dz', 'mm'],
      ]);
    });

    it('answers a caller holding any one read permission, and refuses one holding only write permissions (401004)', async () => {
      const reportReader = await t.apiKey(['report:read']);
      expect((await t.api('GET', '/sensor-types', { headers: h(reportReader) })).status).toBe(200);
      const writer = await t.apiKey(['data:write']);
      const refused = await t.api('GET', '/sensor-types', { headers: h(writer) });
      expectError(refused, 401004);
      expect(refused.body.data.detail).toContain('project:read');
    });
  });

  describe('points without coordinates, channels, trigger levels', () => {
    let projectId: string;
    let piezometer: string;
    let prism: string;
    const write = (records: unknown[]) => t.api('POST', `/projects/${projectId}/data`, { headers: h(), body: { records } });

    beforeAll(async () => {
      projectId = (await t.api('POST', '/projects', { headers: h(), body: { name: 'Dam instruments', number: 'DAM-I', start_date: '2026-01-01' } })).body.data
        .id;
      expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } })).status).toBe(200);
      const p = await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: {
          number: 'PZ-1',
          name: 'Core piezometer',
          sensor_type: 'piezometer',
          trigger_levels: [
            { level: 'warning', channel: 'pore_pressure', above: 250 },
            { level: 'alarm', channel: 'pore_pressure', above: 300 },
            { level: 'action', channel: 'pore_pressure', above: 400 },
          ],
        },
      });
      expect(p.status).toBe(200);
      piezometer = p.body.data.id;
      expect(p.body.data).toMatchObject({ sensor_type: 'piezometer', reference: null, thresholds: null });
      expect(p.body.data.trigger_levels).toEqual([
        { level: 'warning', channel: 'pore_pressure', above: 250, below: null },
        { level: 'alarm', channel: 'pore_pressure', above: 300, below: null },
        { level: 'action', channel: 'pore_pressure', above: 400, below: null },
      ]);
      prism = (
        await t.api('POST', `/projects/${projectId}/points`, {
          headers: h(),
          body: { number: 'TS-1', name: 'Prism', sensor_type: 'total_station', reference: { x: 100, y: 200, z: 30 }, thresholds: { warning: 10, alarm: 20 } },
        })
      ).body.data.id;
    });

    it('still requires reference coordinates and thresholds of a geodetic point (422101), and refuses thresholds on an instrument (422204)', async () => {
      const noRef = await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: { number: 'TS-2', name: 'Prism', sensor_type: 'total_station', thresholds: { warning: 10, alarm: 20 } },
      });
      expectError(noRef, 422101, 'reference');
      const thresholds = await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: { number: 'PZ-2', name: 'Piezometer', sensor_type: 'piezometer', thresholds: { warning: 10, alarm: 20 } },
      });
      expectError(thresholds, 422204, 'thresholds');
      const badChannel = await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: { number: 'PZ-3', name: 'Piezometer', sensor_type: 'piezometer', trigger_levels: [{ level: 'alarm', channel: 'dz', above: 1 }] },
      });
      expectError(badChannel, 422103, 'trigger_levels[0].channel');
    });

    it('stores a reading in its channels, with the status of the highest trigger level crossed, and reads it back', async () => {
      const res = await write([
        { point_id: piezometer, measured_at: '2026-03-01T08:00:00Z', values: { pore_pressure: 120.5, temperature: 11.2 } },
        { point_id: piezometer, measured_at: '2026-03-01T09:00:00Z', values: { pore_pressure: 260 } },
        { point_id: piezometer, measured_at: '2026-03-01T10:00:00Z', values: { pore_pressure: 410 } },
        { point_id: piezometer, measured_at: '2026-03-01T11:00:00Z', values: { pore_pressure: 420 } },
      ]);
      expect(res.status).toBe(200);
      expect(res.body.data.records.map((r: { status: string }) => r.status)).toEqual(['normal', 'warning', 'action', 'action']);
      const list = await t.api('GET', `/points/${piezometer}/data?order=asc`, { headers: h() });
      expect(list.body.data.items.map((r: { values: unknown }) => r.values)).toEqual([
        { pore_pressure: 120.5, temperature: 11.2 },
        { pore_pressure: 260 },
        { pore_pressure: 410 },
        { pore_pressure: 420 },
      ]);
      const rows = await queryTestDatabase<{ channels: unknown; dx: number | null }>(
        t.db.url,
        `SELECT channels, dx FROM monitoring_data.data_records WHERE point_id = $1 ORDER BY measured_at`,
        [piezometer],
      );
      expect(rows[0]).toEqual({ channels: { pore_pressure: 120.5, temperature: 11.2 }, dx: null });
      const alarms = await t.api('GET', `/projects/${projectId}/alarms?point_id=${piezometer}`, { headers: h() });
      expect(alarms.body.data.items).toHaveLength(1);
      expect(alarms.body.data.items[0]).toMatchObject({ rule: 'threshold', level: 'action', channel: 'pore_pressure', status: 'open' });
      // the back-filled write crossed the action level at 10:00, with two readings over it (not only the newest, 11:00)
      expect(alarms.body.data.items[0].first_over).toMatchObject({ measured_at: '2026-03-01T10:00:00.000Z', count: 2 });
      expect(alarms.body.data.items[0].last_measured_at).toBe('2026-03-01T11:00:00.000Z');
    });

    it('refuses an unknown channel and a missing primary channel with 422101 naming them, and an implausible value with 422201', async () => {
      const before = await t.api('GET', `/points/${piezometer}/data`, { headers: h() });
      expectError(
        await write([{ point_id: piezometer, measured_at: '2026-03-02T08:00:00Z', values: { pore_pressur: 1 } }]),
        422101,
        'records[0].values.pore_pressur',
      );
      expectError(
        await write([{ point_id: piezometer, measured_at: '2026-03-02T08:00:00Z', values: { temperature: 9 } }]),
        422101,
        'records[0].values.pore_pressure',
      );
      expectError(await write([{ point_id: piezometer, measured_at: '2026-03-02T08:00:00Z', values: { dz: 1 } }]), 422101, 'records[0].values.dz');
      expectError(
        await write([{ point_id: piezometer, measured_at: '2026-03-02T08:00:00Z', values: { pore_pressure: 50_000 } }]),
        422201,
        'records[0].values.pore_pressure',
      );
      expectError(
        await write([{ point_id: prism, measured_at: '2026-03-02T08:00:00Z', values: { dz: 1, pore_pressure: 3 } }]),
        422101,
        'records[0].values.pore_pressure',
      );
      const after = await t.api('GET', `/points/${piezometer}/data`, { headers: h() });
      expect(after.body.data.items).toHaveLength(before.body.data.items.length);
    });

    it('keeps a total station as it always was: thresholds on displacement, status and values unchanged', async () => {
      const res = await write([{ point_id: prism, measured_at: '2026-03-01T08:00:00Z', values: { x: 100.012, y: 200, z: 30 } }]);
      expect(res.status).toBe(200);
      expect(res.body.data.records[0].status).toBe('warning');
      const rec = (await t.api('GET', `/data/${res.body.data.records[0].data_id}`, { headers: h() })).body.data;
      expect(rec.values).toEqual({ x: 100.012, y: 200, z: 30, dx: 12, dy: 0, dz: 0 });
      const alarms = await t.api('GET', `/projects/${projectId}/alarms?point_id=${prism}`, { headers: h() });
      expect(alarms.body.data.items[0]).toMatchObject({ level: 'warning', channel: 'dx' });
    });
  });
});
