import { waitUntil } from '@mp/testing';
import { startEmbeddedWithKey, type EmbeddedPlatform } from '../support/embedded.js';

// Dated calibrations on the embedded default (PGlite, one database, the projects service handing
// the recomputation job to monitoring-data in-process inside its transaction, ADR 0116): a
// back-dated calibration converts the next write and recomputes the stored readings after it.
describe('calibrations on the embedded default', () => {
  let e: EmbeddedPlatform;
  const api = (method: string, path: string, body?: unknown) => e.api(method, path, body);

  beforeAll(async () => {
    e = await startEmbeddedWithKey('calibrations', ['project:read', 'project:write', 'data:read', 'data:write']);
    expect(e.platform.mode).toBe('embedded');
  }, 120_000);

  afterAll(() => e?.stop());

  it('converts with the calibration valid at measured_at and recomputes the readings after a back-dated one', async () => {
    const projectId = (await api('POST', '/projects', { name: 'Embedded dam', number: 'EMB-C' })).body.data.id;
    expect((await api('PUT', `/projects/${projectId}/status`, { status: 'in_progress' })).status).toBe(200);
    const created = await api('POST', `/projects/${projectId}/points`, {
      number: 'PZ-1',
      name: 'Piezometer',
      sensor_type: 'piezometer',
      calibration: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000 },
      derived_channels: [{ name: 'head', unit: 'm', expression: 'pore_pressure / 10' }],
    });
    expect(created.status).toBe(200);
    const pz = created.body.data.id as string;
    const write = await api('POST', `/projects/${projectId}/data`, {
      records: [
        { point_id: pz, measured_at: '2026-03-01T00:00:00Z', values: { frequency: 2700 } },
        { point_id: pz, measured_at: '2026-03-03T00:00:00Z', values: { frequency: 2700 } },
      ],
    });
    expect(write.status).toBe(200);
    const added = await api('POST', `/points/${pz}/calibrations`, {
      method: 'vibrating_wire',
      gauge_factor: -0.25,
      zero_reading: 7900,
      valid_from: '2026-03-02T00:00:00Z',
    });
    expect(added.status).toBe(200);
    await waitUntil(async () => (await api('GET', `/points/${pz}/calibrations`)).body.data.items[0].recompute.status === 'done', { timeoutMs: 30_000 });
    const list = (await api('GET', `/points/${pz}/data?order=asc`)).body.data.items.map((r: { values: unknown }) => r.values);
    // 177.5 kPa before 03-02 (R₀ 8000), 152.5 kPa from it (R₀ 7900); head = pressure / 10
    expect(list).toEqual([
      { frequency: 2700, pore_pressure: 177.5, head: 17.75 },
      { frequency: 2700, pore_pressure: 152.5, head: 15.25 },
    ]);
  });
});
