import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform, type RunningPlatform } from '@mp/launcher';
import { createLogger } from '@mp/kit';
import { httpsRequest, testCertificate, waitUntil } from '@mp/testing';

// Dated calibrations on the embedded default (PGlite, one database, the projects service handing
// the recomputation job to monitoring-data in-process inside its transaction, ADR 0116): a
// back-dated calibration converts the next write and recomputes the stored readings after it.
describe('calibrations on the embedded default', () => {
  let platform: RunningPlatform;
  let dataDir: string;
  let base: string;
  let key: string;
  const api = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${base}${path}`, { method, headers: { 'x-api-key': key }, ...(body !== undefined ? { body } : {}) });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-calibrations-embedded-'));
    const admin = { username: 'admin', password: 'correct horse battery staple' };
    const env: Record<string, string> = {
      MP_DATA_DIR: dataDir,
      MP_HTTPS_PORT: '0',
      MP_SANDBOX_HTTPS_PORT: '0',
      MP_OPS_PORT: '0',
      MP_BIND_HOST: '127.0.0.1',
      MP_IDENTITY_GRPC_PORT: '0',
      MP_PROJECTS_GRPC_PORT: '0',
      MP_WEBHOOKS_GRPC_PORT: '0',
      MP_MONITORING_DATA_GRPC_PORT: '0',
      MP_ADMIN_USERNAME: admin.username,
      MP_ADMIN_PASSWORD: admin.password,
    };
    platform = await startPlatform({ tls: await testCertificate(), logger: createLogger('test', process.env.MP_LOG_LEVEL ?? 'warn'), env });
    expect(platform.mode).toBe('embedded');
    base = `https://127.0.0.1:${platform.gateway.port}/v3`;
    const login = await httpsRequest(`${base}/auth/login`, { method: 'POST', body: { ...admin, grant_type: 'password' } });
    const created = await httpsRequest(`${base}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${login.body.data.access_token}` },
      body: { name: 'calibrations', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
    });
    key = created.body.data.key;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

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
