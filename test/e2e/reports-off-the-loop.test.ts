import { queryTestDatabase, waitUntil } from '@mp/testing';
import { createTenant, identityClient, tenantKey } from '../support/identity.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// ADR 0093: the CSV and XLSX of a report were encoded on the process's event loop, which in
// one process (as here, and as `npm start` runs) is the gateway's too. One tenant exports a large
// period as CSV and XLSX; while the export is being written, another tenant's requests are
// answered, and the export goes on after them and is complete.
const POINTS = 20;
const HOURS = 5000; // 2025-01-01 on: about seven months of hourly readings per point
const RECORDS = POINTS * HOURS;

describe('a large CSV and XLSX export does not hold up another tenant', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform();
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
  });

  const report = async (id: string) =>
    (
      await queryTestDatabase<{ status: string; record_count: number | null }>(t.db.url, 'SELECT status, record_count FROM reports.reports WHERE id = $1', [id])
    )[0]!;
  const parts = async (id: string) =>
    (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.report_file_parts WHERE report_id = $1', [id]))[0]!.n;

  it("answers another tenant's requests while the export is written, and the export completes", async () => {
    // Tenant A: a project of 20 points with 100,000 readings, loaded straight into the table.
    const a = { 'x-api-key': await t.apiKey(['project:read', 'project:write', 'data:read', 'data:write', 'report:read', 'report:write']) };
    const project = (await t.api('POST', '/projects', { headers: a, body: { name: 'Large export', number: 'LX-1', start_date: '2024-12-01' } })).body.data;
    const pointIds: string[] = [];
    for (let i = 0; i < POINTS; i++) {
      const p = await t.api('POST', `/projects/${project.id}/points`, {
        headers: a,
        body: { number: `P-${i}`, name: `Point ${i}`, sensor_type: 'total_station', reference: { x: 1, y: 2, z: 3 }, thresholds: { warning: 50, alarm: 80 } },
      });
      pointIds.push(p.body.data.id);
    }
    const [{ tenant_id: tenantId }] = await queryTestDatabase<{ tenant_id: string }>(t.db.url, 'SELECT tenant_id FROM projects.projects WHERE id = $1', [
      project.id,
    ]);
    for (let m = 0; m < 8; m++) {
      const from = new Date(Date.UTC(2025, m, 1)).toISOString();
      const to = new Date(Date.UTC(2025, m + 1, 1)).toISOString();
      await queryTestDatabase(
        t.db.url,
        `CREATE TABLE IF NOT EXISTS monitoring_data.data_records_p2025${String(m + 1).padStart(2, '0')} PARTITION OF monitoring_data.data_records FOR VALUES FROM ('${from}') TO ('${to}')`,
      );
    }
    await queryTestDatabase(
      t.db.url,
      `INSERT INTO monitoring_data.data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, dx, dy, dz, status, created_at, updated_at)
       SELECT 'dat_x' || lpad(to_hex(p.i * $4 + h), 19, '0'), $1, 'live', $2, p.id, timestamptz '2025-01-01T00:00:00Z' + h * interval '1 hour', 0,
              round((cos(h / 300.0) * 3)::numeric, 3), round((sin(h / 700.0) * 2)::numeric, 3), round((-h / 1000.0)::numeric, 3), 'normal', now(), now()
         FROM unnest($3::text[]) WITH ORDINALITY AS p(id, i), generate_series(0, $4 - 1) AS h`,
      [tenantId, project.id, pointIds, HOURS],
    );
    const template = (await t.api('POST', '/templates', { headers: a, body: { name: 'Export', sections: ['points'], formats: ['csv', 'xlsx'] } })).body.data.id;

    // Tenant B: a project with one reading.
    const client = identityClient(t);
    const tenantB = await createTenant(client);
    const b = { 'x-api-key': await tenantKey(client, tenantB, ['project:read', 'project:write', 'data:read', 'data:write']) };
    client.close();
    const bProject = (await t.api('POST', '/projects', { headers: b, body: { name: 'Small site', number: 'SS-1', start_date: '2026-01-01' } })).body.data.id;
    await t.api('PUT', `/projects/${bProject}/status`, { headers: b, body: { status: 'in_progress' } });
    const bPoint = await t.api('POST', `/projects/${bProject}/points`, {
      headers: b,
      body: { number: 'B-1', name: 'B 1', sensor_type: 'total_station', reference: { x: 1, y: 2, z: 3 }, thresholds: { warning: 50, alarm: 80 } },
    });
    const write = { records: [{ point_id: bPoint.body.data.id, measured_at: '2026-01-02T00:00:00Z', values: { dx: 1, dy: 2, dz: 3 } }] };

    const asked = await t.api('POST', `/projects/${project.id}/reports`, {
      headers: a,
      body: { template_id: template, from: '2025-01-01T00:00:00Z', to: '2025-08-01T00:00:00Z' },
    });
    expect(asked.status).toBe(200);
    const id = asked.body.data.id as string;
    // The export is being written: parts of it are stored, the report is not finished.
    await waitUntil(async () => (await parts(id)) >= 2, { timeoutMs: 120_000, intervalMs: 20, message: 'the export did not start writing' });

    // Tenant B writes and reads meanwhile, and is answered …
    const written = await t.api('POST', `/projects/${bProject}/data`, { headers: b, body: write });
    expect(written.status).toBe(200);
    const read = await t.api('GET', `/projects/${bProject}/data`, { headers: b });
    expect(read.status).toBe(200);
    expect(read.body.data.items).toHaveLength(1);
    // … while the export is still in flight (a positive marker: B was answered during it) …
    expect((await report(id)).status).toBe('generating');
    const partsWhenAnswered = await parts(id);

    // … which then goes on and is complete: every record in both documents.
    await waitUntil(async () => (await report(id)).status !== 'generating', { timeoutMs: 240_000, intervalMs: 200, message: 'the export did not finish' });
    expect(await report(id)).toEqual({ status: 'generated', record_count: RECORDS });
    expect(await parts(id)).toBeGreaterThan(partsWhenAnswered);
    const csv = await t.api('GET', `/reports/${id}/file?format=csv`, { headers: a });
    expect(csv.status).toBe(200);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(RECORDS + 1);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0])).size).toBe(RECORDS);
  }, 400_000);
});
