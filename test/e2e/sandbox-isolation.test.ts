import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { createTenant, identityClient, tenantKey, upsertPlan } from '../support/identity.js';

// docs/rules.md#tenant-isolation: the sandbox ({sandbox_base_url}, MP_SANDBOX_HTTPS_PORT) has the same
// paths over isolated data. Live and sandbox share no data, keys or tokens; users belong to the
// tenant and sign in at either base URL, and each token is bound to the environment that issued it.
describe('sandbox isolation', () => {
  let t: TestPlatform;
  let live: { key: string; token: string; refresh: string };
  let sandbox: { key: string; token: string; refresh: string };
  const key = (k: string) => ({ 'x-api-key': k });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    t = await startTestPlatform();
    const signIn = async (isSandbox: boolean) =>
      (await t.api('POST', '/auth/login', { body: { ...t.admin, grant_type: 'password' }, sandbox: isSandbox })).body.data;
    const l = await signIn(false);
    const s = await signIn(true);
    const perms = ['project:read', 'project:write', 'system:admin'];
    live = { key: await t.apiKey(perms), token: l.access_token, refresh: l.refresh_token };
    sandbox = { key: await t.apiKey(perms, { sandbox: true }), token: s.access_token, refresh: s.refresh_token };
  });
  afterAll(() => t?.stop());

  it('serves the same paths on its own port', () => {
    expect(t.platform.gateway.sandboxPort).not.toBe(t.platform.gateway.port);
  });

  it('keys belong to one environment: mp_live_… and mp_test_…, each refused (401001) at the other base URL', async () => {
    expect(live.key).toMatch(/^mp_live_[A-Za-z0-9]{32}$/);
    expect(sandbox.key).toMatch(/^mp_test_[A-Za-z0-9]{32}$/);
    expect((await t.api('GET', '/projects', { headers: key(sandbox.key), sandbox: true })).status).toBe(200);
    expectError(await t.api('GET', '/projects', { headers: key(sandbox.key) }), 401001);
    expectError(await t.api('GET', '/projects', { headers: key(live.key), sandbox: true }), 401001);
    // each environment lists and manages only its own keys
    const liveKeys = (await t.api('GET', '/api-keys', { headers: key(live.key) })).body.data.items as { id: string; environment: string }[];
    const sandboxKeys = (await t.api('GET', '/api-keys', { headers: key(sandbox.key), sandbox: true })).body.data.items as {
      id: string;
      environment: string;
    }[];
    expect(liveKeys.every((k) => k.environment === 'live')).toBe(true);
    expect(sandboxKeys.every((k) => k.environment === 'sandbox')).toBe(true);
    expectError(await t.api('DELETE', `/api-keys/${sandboxKeys[0]!.id}`, { headers: key(live.key) }), 404010, 'key_id');
  });

  it('tokens are bound to the environment that issued them (401003 elsewhere), refresh tokens too', async () => {
    expect((await t.api('GET', '/projects', { headers: bearer(sandbox.token), sandbox: true })).status).toBe(200);
    expectError(await t.api('GET', '/projects', { headers: bearer(sandbox.token) }), 401003, 'Authorization');
    expectError(await t.api('GET', '/projects', { headers: bearer(live.token), sandbox: true }), 401003, 'Authorization');
    expectError(await t.api('POST', '/auth/refresh', { body: { refresh_token: sandbox.refresh } }), 401003, 'refresh_token');
    expectError(await t.api('POST', '/auth/refresh', { body: { refresh_token: live.refresh }, sandbox: true }), 401003, 'refresh_token');
    // a sandbox logout does not end the live session of the same user
    expect((await t.api('POST', '/auth/logout', { body: { refresh_token: sandbox.refresh }, sandbox: true })).status).toBe(200);
    expect((await t.api('GET', '/projects', { headers: bearer(live.token) })).status).toBe(200);
  });

  it('users belong to the tenant: the same account signs in at both base URLs and is listed the same', async () => {
    const liveUsers = (await t.api('GET', '/users', { headers: key(live.key) })).body.data.items.map((u: { id: string }) => u.id);
    const sandboxUsers = (await t.api('GET', '/users', { headers: key(sandbox.key), sandbox: true })).body.data.items.map((u: { id: string }) => u.id);
    expect(sandboxUsers).toEqual(liveUsers);
    const me = (await t.api('GET', '/me', { headers: key(sandbox.key), sandbox: true })).body.data;
    expect(me).toMatchObject({ environment: 'sandbox', principal_type: 'api_key' });
  });

  it('shares no data: a sandbox project, device and webhook are unknown in live, and lists are disjoint', async () => {
    const project = await t.api('POST', '/projects', { headers: key(sandbox.key), body: { name: 'Sandbox slope', number: 'SB-1' }, sandbox: true });
    expect(project.status).toBe(200);
    expectError(await t.api('GET', `/projects/${project.body.data.id}`, { headers: key(live.key) }), 404001, 'project_id');
    expect((await t.api('GET', '/projects', { headers: key(live.key) })).body.data.items).toEqual([]);
    // the same project number is free in live
    expect((await t.api('POST', '/projects', { headers: key(live.key), body: { name: 'Live slope', number: 'SB-1' } })).status).toBe(200);

    const device = await t.api('POST', '/devices', {
      headers: key(sandbox.key),
      body: { name: 'Total station', model: 'TM60', type: 'total_station', serial_number: 'TS-1' },
      sandbox: true,
    });
    expect(device.status).toBe(200);
    expectError(await t.api('GET', `/devices/${device.body.data.id}`, { headers: key(live.key) }), 404008, 'device_id');

    const webhook = await t.api('POST', '/webhooks', {
      headers: key(sandbox.key),
      body: { name: 'sandbox hook', url: 'https://127.0.0.1:9/hook', events: ['project.created'] },
      sandbox: true,
    });
    expect(webhook.status).toBe(200);
    expectError(await t.api('GET', `/webhooks/${webhook.body.data.id}`, { headers: key(live.key) }), 404009, 'webhook_id');
    expect((await t.api('GET', '/webhooks', { headers: key(live.key) })).body.data.items).toEqual([]);

    const rows = await queryTestDatabase<{ environment: string }>(t.db.url, 'SELECT environment FROM projects.projects WHERE id = $1', [project.body.data.id]);
    expect(rows).toEqual([{ environment: 'sandbox' }]);
  });

  it('OAuth clients belong to one environment: a sandbox client is unknown to the live authorization page', async () => {
    const client = (
      await t.api('POST', '/oauth/clients', {
        headers: key(sandbox.key),
        body: { name: 'Sandbox app', redirect_uris: ['https://app.example/cb'] },
        sandbox: true,
      })
    ).body.data;
    const q = `?${new URLSearchParams({ client_id: client.client_id, redirect_uri: 'https://app.example/cb', response_type: 'code', scope: 'project:read' })}`;
    expect((await t.api('GET', `/oauth/authorize${q}`, { sandbox: true })).status).toBe(200);
    const liveAttempt = await t.api('GET', `/oauth/authorize${q}`);
    expect(liveAttempt.status).toBe(404);
    expect(liveAttempt.text).toContain('Error 404012');
    expect((await t.api('GET', '/oauth/clients', { headers: key(live.key) })).body.data.items).toEqual([]);
  });

  it('scopes every row of every service by tenant and environment', async () => {
    const columns = await queryTestDatabase<{ table_schema: string; table_name: string; has_env: boolean }>(
      t.db.url,
      `SELECT table_schema, table_name, bool_or(column_name = 'environment') AS has_env
         FROM information_schema.columns
        WHERE table_schema IN ('projects', 'monitoring_data', 'webhooks', 'identity')
        GROUP BY 1, 2
       HAVING bool_or(column_name = 'tenant_id')
        ORDER BY 1, 2`,
    );
    expect(columns.length).toBeGreaterThan(5);
    // Users and tenants are the tenant's own (a user signs in at both base URLs); so is the
    // operator's record of a tenant's archived months (raw retention is the plan's, for both
    // environments; each archived row keeps its environment in the file, ADR 0081). Every other
    // row that names a tenant also names its environment.
    expect(columns.filter((c) => !c.has_env).map((c) => `${c.table_schema}.${c.table_name}`)).toEqual(['identity.users', 'monitoring_data.raw_archives']);
  });

  it('is a licensed feature: a tenant whose plan lacks it is refused in the sandbox (403004) and served live', async () => {
    const id = identityClient(t);
    try {
      await upsertPlan(id, 'live-only', ['oauth']);
      const tenant = await createTenant(id, 'live-only');
      const liveKey = await tenantKey(id, tenant, ['project:read']);
      const sandboxKey = await tenantKey(id, tenant, ['project:read'], 'sandbox');
      expect((await t.api('GET', '/projects', { headers: key(liveKey) })).status).toBe(200);
      expectError(await t.api('GET', '/projects', { headers: key(sandboxKey), sandbox: true }), 403004);
      expectError(
        await t.api('POST', '/auth/login', { body: { username: tenant.username, password: tenant.password, grant_type: 'password' }, sandbox: true }),
        403004,
      );
      expect((await t.api('POST', '/auth/login', { body: { username: tenant.username, password: tenant.password, grant_type: 'password' } })).status).toBe(200);
    } finally {
      id.close();
    }
  });
});
