import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startPlatform, type RunningPlatform } from '@mp/launcher';
import { httpsRequest, testCertificate } from '@mp/testing';

// ADR 0051: a data folder made before the one shared embedded database, with one PGlite database
// per service in MP_DATA_DIR/db/<schema>, keeps working: every service finds its own database
// there (nothing is left behind or copied), and the start says so once with what it costs.
describe('embedded default on a data folder of the earlier layout', () => {
  const SCHEMAS = ['identity', 'projects', 'monitoring_data', 'webhooks'];
  const admin = { username: 'admin', password: 'correct horse battery staple' };
  let made: string;
  let legacy: string;
  let platform: RunningPlatform | null = null;
  let ca: string;
  const logs: { level: number; msg: string; schemas?: string[] }[] = [];

  const start = async (dataDir: string) => {
    const tls = await testCertificate();
    ca = tls.cert;
    platform = await startPlatform({
      tls,
      logger: pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) }),
      env: {
        MP_DATA_DIR: dataDir,
        MP_HTTPS_PORT: '0',
        MP_SANDBOX_HTTPS_PORT: '0',
        MP_BIND_HOST: '127.0.0.1',
        MP_ADMIN_USERNAME: admin.username,
        MP_ADMIN_PASSWORD: admin.password,
      },
    });
    const base = `https://127.0.0.1:${platform.gateway.port}/v3`;
    const login = await httpsRequest(`${base}/auth/login`, { method: 'POST', ca, body: { ...admin, grant_type: 'password' } });
    expect(login.status).toBe(200);
    const headers = { authorization: `Bearer ${login.body.data.access_token}` };
    return (method: string, path: string, body?: unknown) => httpsRequest(`${base}${path}`, { method, ca, headers, ...(body !== undefined ? { body } : {}) });
  };
  const stop = async () => {
    await platform?.stop();
    platform = null;
  };

  beforeAll(() => {
    made = mkdtempSync(join(tmpdir(), 'mp-layout-made-'));
    legacy = mkdtempSync(join(tmpdir(), 'mp-layout-legacy-'));
  });
  afterAll(async () => {
    await stop();
    rmSync(made, { recursive: true, force: true });
    rmSync(legacy, { recursive: true, force: true });
  });

  it('keeps using one database per service, with a warning, and keeps what is written across a restart', async () => {
    // A platform writes a project; its database then stands in for each service's database of the
    // earlier layout (each service reads only its own schema of it).
    let call = await start(made);
    const project = await call('POST', '/projects', { name: 'Quay wall', number: 'QW-1' });
    expect(project.status).toBe(200);
    await stop();
    for (const schema of SCHEMAS) cpSync(join(made, 'postgres'), join(legacy, 'db', schema), { recursive: true });
    cpSync(join(made, 'secrets.key'), join(legacy, 'secrets.key'));
    expect(logs.filter((l) => l.level >= 40 && /earlier layout/.test(l.msg))).toEqual([]);

    call = await start(legacy);
    expect(logs.filter((l) => /earlier layout/.test(l.msg))).toEqual([expect.objectContaining({ level: 40, schemas: SCHEMAS })]);
    // each service of that layout still opens its own folder; only reports, newer than the layout,
    // has its schema in the one shared database (MP_DATA_DIR/postgres)
    for (const schema of SCHEMAS) expect(existsSync(join(legacy, 'db', schema, 'PG_VERSION'))).toBe(true);
    expect((await call('GET', `/projects/${project.body.data.id}`)).body.data).toMatchObject({ name: 'Quay wall', number: 'QW-1' });
    const second = await call('POST', '/projects', { name: 'Breakwater', number: 'BW-1' });
    expect(second.status).toBe(200);
    await stop();

    call = await start(legacy);
    const list = await call('GET', '/projects');
    expect(list.body.data.items.map((p: { number: string }) => p.number).sort()).toEqual(['BW-1', 'QW-1']);
    // each service of that layout still opens its own folder; only reports, newer than the layout,
    // has its schema in the one shared database (MP_DATA_DIR/postgres)
    for (const schema of SCHEMAS) expect(existsSync(join(legacy, 'db', schema, 'PG_VERSION'))).toBe(true);
  }, 240_000);
});
