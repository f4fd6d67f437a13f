import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform, type RunningPlatform } from '@mp/launcher';
import { createLogger } from '@mp/kit';
import { httpsRequest, testCertificate, waitUntil } from '@mp/testing';
import { REPO_ROOT } from '../support/process.js';

// Retention on the embedded default, as an operator meets it: a plan's raw retention set with the
// operator command, `npm run data:archive` refusing beside the running platform and archiving
// once it stopped (retention read from the identity schema of the one database), and the running
// platform's own scheduled job (retention asked from the identity service) archiving a month
// written late. Series over archived months still answer from the rollups.
describe('retention of raw readings on the embedded default', () => {
  let dataDir: string;
  let platform: RunningPlatform | null = null;
  let base: string;
  let ca: string;
  let key = '';
  const admin = { username: 'admin', password: 'correct horse battery staple' };
  const call = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${base}${path}`, { method, ca, headers: key ? { 'x-api-key': key } : {}, ...(body !== undefined ? { body } : {}) });
  const env = (extra: Record<string, string> = {}) => {
    const clean: Record<string, string | undefined> = { ...process.env };
    for (const k of Object.keys(clean)) if (k.startsWith('MP_') || k.startsWith('npm_')) delete clean[k];
    return { ...clean, MP_DATA_DIR: dataDir, MP_LOG_LEVEL: 'warn', ...extra };
  };
  const command = (script: string, args: string[] = []) =>
    new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, [script, ...args], { cwd: REPO_ROOT, env: env() as NodeJS.ProcessEnv }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
  const start = async (archiveEveryMs: number) => {
    const tls = await testCertificate();
    ca = tls.cert;
    platform = await startPlatform({
      tls,
      logger: createLogger('test', process.env.MP_LOG_LEVEL ?? 'warn'),
      env: {
        MP_DATA_DIR: dataDir,
        MP_HTTPS_PORT: '0',
        MP_SANDBOX_HTTPS_PORT: '0',
        MP_OPS_PORT: '0',
        MP_BIND_HOST: '127.0.0.1',
        MP_ADMIN_USERNAME: admin.username,
        MP_ADMIN_PASSWORD: admin.password,
        MP_ARCHIVE_INTERVAL_MS: String(archiveEveryMs),
      },
    });
    base = `https://127.0.0.1:${platform.gateway.port}/v3`;
  };
  const every = (pointId: string, startIso: string, n: number, stepMin: number) =>
    Array.from({ length: n }, (_, i) => ({
      point_id: pointId,
      measured_at: new Date(Date.parse(startIso) + i * stepMin * 60_000).toISOString(),
      values: { x: 3512345.1 + i / 1000, y: 512345.6, z: 45.3 },
    }));
  const count = (series: { body: any }) => (series.body.data.buckets as { count: number }[]).reduce((s, b) => s + b.count, 0);
  const listed = async (pointId: string, from: string, to: string) => {
    const res = await call('GET', `/points/${pointId}/data?from=${from}&to=${to}&limit=100`);
    expect(res.status).toBe(200);
    return (res.body.data.items ?? res.body.data) as unknown[];
  };
  const filesOf = (month: string) => {
    const dir = join(dataDir, 'archive', 'data_records', month);
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-archive-embedded-'));
  });
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('archives months past the plan’s retention by hand and on schedule; series still answer', async () => {
    await start(0);
    const login = await call('POST', '/auth/login', { ...admin, grant_type: 'password' });
    const created = await httpsRequest(`${base}/api-keys`, {
      method: 'POST',
      ca,
      headers: { authorization: `Bearer ${login.body.data.access_token}` },
      body: { name: 'retention', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
    });
    key = created.body.data.key;
    const tenantId = (await call('GET', '/me')).body.data.tenant.id as string;
    const project = await call('POST', '/projects', {
      name: 'Harbour wall',
      number: 'HW-RET',
      start_date: '2026-01-01',
      bounds: { min_x: 3_000_000, max_x: 4_000_000, min_y: 400_000, max_y: 600_000, min_z: -100, max_z: 500 },
    });
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
    expect((await call('PUT', `/projects/${projectId}/status`, { status: 'in_progress' })).status).toBe(200);
    const records = [...every(pointId, '2026-02-03T00:10:00Z', 30, 37), ...every(pointId, '2026-11-02T00:00:00Z', 10, 60)];
    const stored = await call('POST', `/projects/${projectId}/data`, { records });
    expect({ status: stored.status, body: stored.status === 200 ? null : stored.body }).toEqual({ status: 200, body: null });
    const febSeries = `/points/${pointId}/series?from=2026-02-03T00:00:00Z&to=2026-02-04T00:00:00Z&interval_seconds=3600`;
    const before = await call('GET', febSeries);
    expect(count(before)).toBe(30);

    // the operator gives the tenant a plan keeping 1 month of raw readings
    const plan = await command('packages/operator/dist/cli.js', [
      'upsert-plan',
      '--name',
      'keep1',
      '--features',
      'sandbox,oauth,reports,data_batches',
      '--raw-retention-months',
      '1',
    ]);
    expect(plan).toMatchObject({ code: 0 });
    expect(JSON.parse(plan.output)).toMatchObject({ name: 'keep1', raw_retention_months: 1 });
    expect((await command('packages/operator/dist/cli.js', ['set-tenant-plan', '--tenant', tenantId, '--plan', 'keep1'])).code).toBe(0);

    // beside the running platform the command refuses in one line and archives nothing
    const refused = await command('services/monitoring-data/dist/archive-main.js');
    expect(refused.code).toBe(1);
    expect(refused.output.trim().split('\n')).toHaveLength(1);
    expect(refused.output).toMatch(/MP_DATA_DIR.*in use by process/);
    expect(filesOf('2026-02')).toEqual([]);

    await platform!.stop();
    platform = null;
    const archived = await command('services/monitoring-data/dist/archive-main.js');
    expect(archived).toEqual({ code: 0, output: '' });
    expect(filesOf('2026-02')).toEqual([expect.stringMatching(new RegExp(`^${tenantId}\\.\\d{8}T\\d{6}Z\\.csv\\.gz$`))]);
    // rollups are all that is left of February: a rebuild from raw rows refuses instead of emptying them
    const rebuild = await command('services/monitoring-data/dist/rebuild-rollups.js');
    expect(rebuild.code).toBe(1);
    expect(JSON.parse(rebuild.output)).toMatchObject({
      since: '2026-02',
      msg: expect.stringMatching(/^refused: raw readings of earlier months were archived/),
    });

    await start(300);
    expect((await call('GET', febSeries)).body.data.buckets).toEqual(before.body.data.buckets);
    expect(await listed(pointId, '2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z')).toEqual([]);
    expect(await listed(pointId, '2026-11-01T00:00:00Z', '2026-11-27T00:00:00Z')).toHaveLength(10);

    // a reading stored late into an archived month recreates it; the scheduled job archives it
    expect((await call('POST', `/projects/${projectId}/data`, { records: every(pointId, '2026-04-09T12:00:00Z', 3, 10) })).status).toBe(200);
    await waitUntil(async () => filesOf('2026-04').length === 1, { timeoutMs: 30_000 });
    await waitUntil(async () => (await listed(pointId, '2026-04-01T00:00:00Z', '2026-05-01T00:00:00Z')).length === 0, { timeoutMs: 30_000 });
    expect(count(await call('GET', `/points/${pointId}/series?from=2026-04-09T00:00:00Z&to=2026-04-10T00:00:00Z&interval_seconds=86400`))).toBe(3);
  }, 240_000);
});
