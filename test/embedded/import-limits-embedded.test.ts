import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform, type RunningPlatform } from '@mp/launcher';
import { createLogger } from '@mp/kit';
import { httpsRequest, testCertificate, waitUntil } from '@mp/testing';

// The embedded default has no Redis: every rate-limit counter lives in the one process's memory.
// An import's readings must count against the same data-record limit as the tenant's JSON writes
// (docs/imports.md), as they do through Redis on a deployment: a file that spends the minute
// leaves nothing for a JSON write in that minute.
describe('imports and JSON writes share the data-record limit on the embedded default', () => {
  const PER_MINUTE = 20;
  let platform: RunningPlatform;
  let dataDir: string;
  let base: string;
  let key: string;
  const api = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${base}${path}`, { method, headers: { 'x-api-key': key }, ...(body !== undefined ? { body } : {}) });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-import-limits-embedded-'));
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
      MP_LIMIT_DATA_RECORDS_PER_MINUTE: String(PER_MINUTE),
    };
    platform = await startPlatform({ tls: await testCertificate(), logger: createLogger('test', process.env.MP_LOG_LEVEL ?? 'warn'), env });
    expect(platform.mode).toBe('embedded');
    base = `https://127.0.0.1:${platform.gateway.port}/v3`;
    const login = await httpsRequest(`${base}/auth/login`, { method: 'POST', body: { ...admin, grant_type: 'password' } });
    const created = await httpsRequest(`${base}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${login.body.data.access_token}` },
      body: { name: 'import-limits', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
    });
    key = created.body.data.key;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("counts a file's readings in the gateway's counters: a JSON write after a file that spent the minute is refused 429002, storing nothing", async () => {
    const projectId = (await api('POST', '/projects', { name: 'Embedded loggers', number: 'EMB-L' })).body.data.id;
    expect((await api('PUT', `/projects/${projectId}/status`, { status: 'in_progress' })).status).toBe(200);
    const gauge = (await api('POST', `/projects/${projectId}/points`, { number: 'WL-1', name: 'Reservoir level', sensor_type: 'water_level_gauge' })).body.data
      .id as string;
    const profile = await api('POST', `/projects/${projectId}/import-profiles`, {
      name: 'Level logger',
      format: 'csv',
      timestamp_column: 'time',
      time_zone: 'UTC',
      columns: [{ column: 'level', point_id: gauge, channel: 'water_level' }],
    });
    expect(profile.status).toBe(200);
    const rows = Array.from({ length: PER_MINUTE }, (_, i) => `2026-03-01T00:${String(i).padStart(2, '0')}:00Z,${(101 + i / 100).toFixed(2)}`);
    const upload = await httpsRequest(`${base}/projects/${projectId}/data/imports?profile_id=${profile.body.data.id}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'text/csv' },
      rawBody: ['time,level', ...rows].join('\n'),
    });
    expect(upload.status).toBe(200);
    const imported = await waitUntil(
      async () => {
        const res = await api('GET', `/data/imports/${upload.body.data.import_id}`);
        return res.body.data.status !== 'processing' ? res.body.data : null;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(imported).toMatchObject({ status: 'completed', rows: PER_MINUTE, stored: PER_MINUTE, duplicates: 0 });

    const write = await api('POST', `/projects/${projectId}/data`, {
      records: [{ point_id: gauge, measured_at: '2026-03-01T01:00:00Z', values: { water_level: 102 } }],
    });
    expect(write.status).toBe(429);
    expect(write.body.code).toBe(429002);
    expect(Number(write.headers['retry-after'])).toBeGreaterThan(0);
    const stored = (await api('GET', `/points/${gauge}/data?limit=100`)).body.data.items;
    expect(stored).toHaveLength(PER_MINUTE);
    expect(stored.some((r: { measured_at: string }) => r.measured_at.startsWith('2026-03-01T01:00'))).toBe(false);
  });
});
