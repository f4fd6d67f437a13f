import { SENSOR_TYPES } from '@mp/contracts';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 27 through the HTTPS gateway: the sensor types with their channels and units, points of
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
});
