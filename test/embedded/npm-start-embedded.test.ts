import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsRequest, startHttpsReceiver, testCertificate, type HttpsReceiver } from '@mp/testing';
import { verifySignature } from '@mp/webhooks';
import { type StartedProcess, startProcess, userEnv } from '../support/process.js';

// The README's start command with nothing but Node.js: no database, broker or cache
// settings, so every service runs on its embedded adapters under a fresh data folder.
describe('npm start: the embedded default', () => {
  let dataDir: string;
  let receiver: HttpsReceiver;
  let proc: StartedProcess | null = null;
  const env = () =>
    userEnv(dataDir, {
      MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // `npm test` has built everything; a rebuild here would rewrite dist/ under test files
      // running in parallel.
      MP_SKIP_BUILD: '1',
      NODE_EXTRA_CA_CERTS: join(dataDir, 'receiver-ca.pem'),
    });
  const start = async () => {
    proc = startProcess('npm', ['start', '--silent'], { env: env() });
    const [, url] = await proc.waitForOutput(/Live API:\s+(https:\/\/\S+)/, 90_000);
    await proc.waitForOutput(/Press Ctrl-C to stop/);
    return url!.replace('localhost', '127.0.0.1');
  };
  const call = (base: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
    httpsRequest(`${base}${path}`, { method, ca: readFileSync(join(dataDir, 'tls', 'tls.crt'), 'utf8'), ...opts });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-embedded-'));
    writeFileSync(join(dataDir, 'receiver-ca.pem'), (await testCertificate()).cert);
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts, signs in, delivers signed events, and keeps everything across a restart', async () => {
    let base = await start();
    const out = proc!.output();
    expect(out).toMatch(/embedded mode/);
    expect(out).toMatch(/Sandbox API:\s+https:\/\/localhost:\d+\/v3/);
    // one embedded PostgreSQL for every service (ADR 0051), not a database per service
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'db'))).toBe(false);
    const [, username, password] = out.match(/username "([^"]+)", password "([^"]+)"/)!;

    const login = await call(base, 'POST', '/auth/login', { body: { username, password, grant_type: 'password' } });
    expect(login.status).toBe(200);
    const token = login.body.data.access_token;
    const keyRes = await call(base, 'POST', '/api-keys', {
      headers: { authorization: `Bearer ${token}` },
      body: { name: 'embedded', permissions: ['project:read', 'project:write', 'data:read', 'data:write', 'system:admin'] },
    });
    expect(keyRes.status).toBe(200);
    const key = keyRes.body.data.key;
    const hook = await call(base, 'POST', '/webhooks', {
      headers: { 'x-api-key': key },
      body: { name: 'local', url: receiver.url, events: ['project.created', 'data.created'] },
    });
    expect(hook.status).toBe(200);
    const project = await call(base, 'POST', '/projects', {
      headers: { 'x-api-key': key },
      body: { name: 'Harbour wall', number: 'HW-1', start_date: '2026-01-01' },
    });
    expect(project.status).toBe(200);
    const projectId = project.body.data.id;
    expect((await call(base, 'PUT', `/projects/${projectId}/status`, { headers: { 'x-api-key': key }, body: { status: 'in_progress' } })).status).toBe(200);
    const point = await call(base, 'POST', `/projects/${projectId}/points`, {
      headers: { 'x-api-key': key },
      body: {
        number: 'P-01',
        name: 'Wall crest 1',
        sensor_type: 'total_station',
        reference: { x: 1000, y: 2000, z: 50 },
        thresholds: { warning: 10, alarm: 20 },
      },
    });
    expect(point.status).toBe(200);
    const written = await call(base, 'POST', `/projects/${projectId}/data`, {
      headers: { 'x-api-key': key },
      body: { records: [{ point_id: point.body.data.id, measured_at: '2026-03-01T08:00:00+08:00', values: { x: 1000.002, y: 2000.001, z: 49.999 } }] },
    });
    expect(written.status).toBe(200);
    // the same point and instant again: refused whole (409003), nothing stored or emitted (the two
    // deliveries counted below are all there are)
    const duplicate = await call(base, 'POST', `/projects/${projectId}/data`, {
      headers: { 'x-api-key': key },
      body: { records: [{ point_id: point.body.data.id, measured_at: '2026-03-01T08:00:00+08:00', values: { dz: 1 } }] },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ code: 409003, data: { field: 'records[0].measured_at' } });

    const [delivered, dataEvent] = await receiver.waitFor(2);
    expect(delivered!.json).toMatchObject({ event_type: 'project.created', webhook_id: hook.body.data.id, data: { project_id: projectId } });
    expect(dataEvent!.json).toMatchObject({
      event_type: 'data.created',
      data: {
        project_id: projectId,
        total_count: 1,
        abnormal_count: 0,
        records: [{ point_id: point.body.data.id, measured_at: '2026-03-01T08:00:00+08:00', status: 'normal' }],
      },
    });
    expect(
      verifySignature({
        secret: hook.body.data.secret,
        signatureHeader: delivered!.headers['x-service-signature'] as string,
        timestampHeader: delivered!.headers['x-service-timestamp'] as string,
        rawBody: delivered!.rawBody,
      }),
    ).toBe(true);

    // Ctrl-C (SIGINT to the whole process group, as a terminal sends it): the platform finishes and
    // says so; npm itself then ends by the same signal (exit code null) or with 0.
    expect([0, null]).toContain(await proc!.stop('SIGINT'));
    expect(proc!.output()).toMatch(/Stopping: new connections are refused; requests in flight finish \(Ctrl-C again to stop at once\)…\nStopped\./);

    // … and a warm start finds the same data and the same administrator (no new password).
    base = await start();
    expect(proc!.output()).not.toMatch(/First administrator created/);
    const again = await call(base, 'POST', '/auth/login', { body: { username, password, grant_type: 'password' } });
    expect(again.status).toBe(200);
    const got = await call(base, 'GET', `/projects/${projectId}`, { headers: { 'x-api-key': key } });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ name: 'Harbour wall', status: 'in_progress' });
    const stored = await call(base, 'GET', `/points/${point.body.data.id}/data`, { headers: { 'x-api-key': key } });
    expect(stored.status).toBe(200);
    expect(stored.body.data.items).toHaveLength(1);
    const deliveries = await call(base, 'GET', `/webhooks/${hook.body.data.id}/deliveries`, { headers: { 'x-api-key': key } });
    expect(deliveries.body.data.items).toHaveLength(2);
    for (const d of deliveries.body.data.items) expect(d).toMatchObject({ status: 'delivered', http_status: 200 });

    // Events written after the restart are delivered too, once each.
    await call(base, 'POST', '/projects', { headers: { 'x-api-key': key }, body: { name: 'Second', number: 'HW-2' } });
    await receiver.waitFor(3);
    // A later event is the marker: the relay and the webhooks service handle events in order, so a
    // second copy of the one before would have come ahead of it.
    await call(base, 'POST', '/projects', { headers: { 'x-api-key': key }, body: { name: 'Third', number: 'HW-3' } });
    const all = await receiver.waitFor(4);
    expect(all.slice(2).map((r) => r.json.data.project_name)).toEqual(['Second', 'Third']);
    expect(new Set(all.map((r) => r.json.event_id)).size).toBe(4);
    expect(receiver.requests).toHaveLength(4);
    expect([0, null]).toContain(await proc!.stop('SIGINT'));
    proc = null;
  }, 240_000);

  // A second copy on the same data folder, and the operator command against npm start.
  // The second copy is started as a user would, with the same settings, so the first
  // one's ops port is taken too; the folder is what the answer names.
  it('refuses a second copy on the same data folder in one line, and serves the operator command', async () => {
    const base = await start();
    const [, opsPort] = proc!.output().match(/Operations:\s+http:\/\/127\.0\.0\.1:(\d+)\/metrics/)!;
    const second = startProcess('npm', ['start', '--silent'], { env: { ...env(), MP_OPS_PORT: opsPort } });
    const code = await new Promise<number | null>((resolve) => second.child.once('exit', resolve));
    expect(code).toBe(1);
    const lines = second.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^Monitoring Platform did not start: MP_DATA_DIR: the data folder \\S*${dataDir.split('/').pop()} is in use by process \\d+ \\(a running Monitoring Platform, or a command on its data\\): stop it first \\(Ctrl-C where it runs\\), then run this again; or set MP_DATA_DIR to another folder\\.$`,
      ),
    );
    // The first one still answers.
    expect((await call(base, 'GET', '/healthz')).status).toBe(200);

    // `npm run operator` finds the running platform's credential in the data folder.
    const op = startProcess('npm', ['run', '--silent', 'operator', '--', 'create-tenant', '--name', 'Dam Authority', '--admin-username', 'dam-admin'], {
      env: env(),
    });
    expect(await new Promise<number | null>((resolve) => op.child.once('exit', resolve))).toBe(0);
    const created = JSON.parse(op.output());
    expect(created.tenant.name).toBe('Dam Authority');
    const login = await call(base, 'POST', '/auth/login', { body: { username: 'dam-admin', password: created.admin_password, grant_type: 'password' } });
    expect(login.status).toBe(200);
    expect([0, null]).toContain(await proc!.stop('SIGINT'));
    proc = null;
  }, 240_000);
});
