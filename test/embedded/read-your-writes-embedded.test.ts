import { startEmbeddedWithKey, type EmbeddedPlatform } from '../support/embedded.js';

// Read after write (ADR 0022) on the embedded default: PGlite and the in-process transport, one
// process, default settings. The launcher connects projects to monitoring-data once both listen,
// so a change answered through the API is seen by the very next data write, as in production.
describe('read-your-writes on the embedded default', () => {
  let e: EmbeddedPlatform;
  const call = (method: string, path: string, body?: unknown) => e.api(method, path, body);
  let minute = 0;
  const write = (projectId: string, pointId: string, values = { x: 3512345.103, y: 512345.6, z: 45.3 }) =>
    call('POST', `/projects/${projectId}/data`, {
      records: [{ point_id: pointId, measured_at: new Date(Date.UTC(2026, 2, 1, 0, ++minute)).toISOString(), values }],
    });
  const outcome = async (res: Promise<{ status: number; body: any }>) => {
    const r = await res;
    return r.status === 200 ? { status: 200, stored: r.body.data.records.map((x: { status: string }) => x.status) } : { status: r.status, code: r.body.code };
  };

  beforeAll(async () => {
    // Nothing but the data folder and ports: no database, broker or cache settings.
    e = await startEmbeddedWithKey('read-your-writes', ['project:read', 'project:write', 'data:read', 'data:write']);
    expect(e.platform.mode).toBe('embedded');
  }, 180_000);
  afterAll(() => e?.stop());

  it('start, threshold change and archive each reach the very next write', async () => {
    const project = await call('POST', '/projects', {
      name: 'Harbour wall',
      number: 'HW-RYW',
      start_date: '2026-01-01',
      bounds: { min_x: 3_000_000, max_x: 4_000_000, min_y: 400_000, max_y: 600_000, min_z: -100, max_z: 500 },
    });
    expect(project.status).toBe(200);
    const projectId = project.body.data.id;
    const point = await call('POST', `/projects/${projectId}/points`, {
      number: 'P1',
      name: 'Crown settlement P1',
      sensor_type: 'total_station',
      reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
      thresholds: { warning: 10, alarm: 20 },
    });
    expect(point.status).toBe(200);
    const pointId = point.body.data.id;

    // Not started: refused, and the context is now cached.
    expect(await outcome(write(projectId, pointId))).toEqual({ status: 422, code: 422303 });
    expect((await call('PUT', `/projects/${projectId}/status`, { status: 'in_progress' })).status).toBe(200);
    expect(await outcome(write(projectId, pointId))).toEqual({ status: 200, stored: ['normal'] });

    expect((await call('PATCH', `/points/${pointId}`, { thresholds: { warning: 1, alarm: 2 } })).status).toBe(200);
    expect(await outcome(write(projectId, pointId))).toEqual({ status: 200, stored: ['alarm'] });

    expect((await call('PUT', `/projects/${projectId}/status`, { status: 'completed' })).status).toBe(200);
    expect(await outcome(write(projectId, pointId))).toEqual({ status: 200, stored: ['alarm'] });
    expect((await call('PUT', `/projects/${projectId}/status`, { status: 'archived' })).status).toBe(200);
    expect(await outcome(write(projectId, pointId))).toEqual({ status: 422, code: 422301 });

    const stored = await call('GET', `/projects/${projectId}/data?limit=10`);
    expect(stored.body.data.items ?? stored.body.data).toHaveLength(3);
  }, 120_000);
});
