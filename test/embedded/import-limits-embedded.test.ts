import { httpsRequest, waitUntil } from '@mp/testing';
import { startEmbeddedWithKey, type EmbeddedPlatform } from '../support/embedded.js';

// The embedded default has no Redis: every rate-limit counter lives in the one process's memory.
// An import's readings must count against the same data-record limit as the tenant's JSON writes
// (docs/imports.md), as they do through Redis on a deployment: a file that spends the minute
// leaves nothing for a JSON write in that minute.
describe('imports and JSON writes share the data-record limit on the embedded default', () => {
  const PER_MINUTE = 20;
  let e: EmbeddedPlatform;
  const api = (method: string, path: string, body?: unknown) => e.api(method, path, body);

  beforeAll(async () => {
    e = await startEmbeddedWithKey('import-limits', ['project:read', 'project:write', 'data:read', 'data:write'], {
      MP_LIMIT_DATA_RECORDS_PER_MINUTE: String(PER_MINUTE),
    });
    expect(e.platform.mode).toBe('embedded');
  }, 120_000);

  afterAll(() => e?.stop());

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
    const upload = await httpsRequest(`${e.base}/projects/${projectId}/data/imports?profile_id=${profile.body.data.id}`, {
      method: 'POST',
      headers: { 'x-api-key': e.key, 'content-type': 'text/csv' },
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
