import { createHash } from 'node:crypto';
import { waitUntil } from '@mp/testing';
import { startEmbeddedWithKey, type EmbeddedPlatform } from '../support/embedded.js';

// Reports on the embedded default (`npm start`: PGlite, in-process events): the generation job is
// claimed (FOR UPDATE SKIP LOCKED), its documents stored as bytea parts and downloaded through the
// HTTPS API, on PGlite's single connection.
describe('reports on the embedded default', () => {
  let e: EmbeddedPlatform;
  const api = (method: string, path: string, body?: unknown) => e.api(method, path, body);

  beforeAll(async () => {
    e = await startEmbeddedWithKey('reports', ['project:read', 'project:write', 'data:read', 'data:write', 'report:read', 'report:write']);
    expect(e.platform.mode).toBe('embedded');
  }, 120_000);

  afterAll(() => e?.stop());

  it('generates, serves and approves a report', async () => {
    const projectId = (await api('POST', '/projects', { name: 'Embedded dam', number: 'ED-1', start_date: '2026-01-01' })).body.data.id;
    expect((await api('PUT', `/projects/${projectId}/status`, { status: 'in_progress' })).status).toBe(200);
    const point = (
      await api('POST', `/projects/${projectId}/points`, {
        number: 'E-1',
        name: 'Embedded point',
        sensor_type: 'total_station',
        reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
        thresholds: { warning: 10, alarm: 20 },
      })
    ).body.data.id;
    const records = Array.from({ length: 24 }, (_, i) => ({
      point_id: point,
      measured_at: `2026-02-01T${String(i).padStart(2, '0')}:00:00Z`,
      values: { dx: i / 10, dy: 0, dz: -i / 20 },
    }));
    expect((await api('POST', `/projects/${projectId}/data`, { records })).status).toBe(200);
    const templateId = (await api('POST', '/templates', { name: 'Day', sections: ['latest', 'points'], formats: ['pdf', 'csv', 'xlsx'] })).body.data.id;
    const id = (await api('POST', `/projects/${projectId}/reports`, { template_id: templateId, from: '2026-02-01T00:00:00Z', to: '2026-02-02T00:00:00Z' })).body
      .data.id;
    const done = await waitUntil(
      async () => {
        const r = (await api('GET', `/reports/${id}`)).body.data;
        return r.status !== 'generating' ? r : null;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(done).toMatchObject({ status: 'generated', record_count: 24, data_as_of: '2026-02-01T23:00:00.000Z' });
    for (const f of done.files) {
      const res = await api('GET', `/reports/${id}/file?format=${f.format}`);
      expect(res.status).toBe(200);
      expect(res.bytes.length).toBe(f.size_bytes);
      expect(createHash('sha256').update(res.bytes).digest('hex')).toBe(f.sha256);
    }
    expect((await api('POST', `/reports/${id}/approve`, {})).body.data.status).toBe('approved');
  });
});
