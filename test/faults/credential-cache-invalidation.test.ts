import { identity } from '@mp/contracts';
import type { CallerContext, PromiseClient } from '@mp/grpc';
import { platformClient } from '@mp/testing';
import { startSeparatePlatform, type Replica, type SeparatePlatform } from './support/separate-processes.js';

// Each gateway replica caches identity's answers about credentials (ADR 0100). Every change of
// who may call must still be refused at the very next request on every replica: here two gateway
// processes in front of one identity process (real PostgreSQL, NATS and Redis). A credential is
// first used on replica B until B answers it from its cache (its hit counter moves), then changed
// through replica A, or straight at identity for operator changes, and the very next request on
// B, sent as soon as the change is answered, must be refused.

const operator: CallerContext = {
  requestId: 'req_cachetestcachetest',
  tenantId: '',
  environment: 'live',
  principalId: 'operator',
  principalType: 'system',
  permissions: [],
};

describe('credentials cached on a gateway replica are refused at the next request after a change on another', () => {
  let p: SeparatePlatform;
  let a: Replica;
  let b: Replica;
  let admin: Record<string, string>;
  let tenantId: string;
  let id: PromiseClient<identity.IdentityServer>;
  let users = 0;

  beforeAll(async () => {
    p = await startSeparatePlatform({ gateway: 2 });
    [a, b] = p.of('gateway') as [Replica, Replica];
    const login = await p.api(a, 'POST', '/auth/login', { body: { ...p.admin, grant_type: 'password' } });
    expect(login.status).toBe(200);
    admin = { authorization: `Bearer ${login.body.data.access_token}` };
    const me = await p.api(a, 'GET', '/me', { headers: admin });
    expect(me.status).toBe(200);
    tenantId = me.body.data.tenant.id;
    id = platformClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, p.env.MP_IDENTITY_ADDR!, p.keys, 'identity');
  }, 180_000);

  afterAll(async () => {
    (id as unknown as { close?: () => void })?.close?.();
    await p?.stop();
  });

  /** Replica B's count of requests answered from its cache. */
  const hits = async (gw: Replica): Promise<number> => {
    const metrics = await p.ops(gw, '/metrics');
    const m = /^mp_gateway_credential_cache_total\{[^}]*result="hit"[^}]*\} (\d+)/m.exec(metrics.text);
    return m ? Number(m[1]) : 0;
  };

  /** Uses `headers` on B until B answers from its cache; every answer must be `status`. */
  const warm = async (method: string, path: string, headers: Record<string, string>, status = 200, body?: unknown) => {
    const before = await hits(b);
    for (let i = 0; i < 2; i++) {
      const res = await p.api(b, method, path, { headers, ...(body !== undefined ? { body } : {}) });
      expect({ status: res.status, code: res.body?.code }).toEqual({ status, code: status === 200 ? 200 : expect.any(Number) });
    }
    expect(await hits(b)).toBeGreaterThan(before);
  };

  const newUser = async (permissions: string[]) => {
    const username = `cached.user.${++users}`;
    const password = 'cached user password 1';
    const created = await p.api(a, 'POST', '/users', { headers: admin, body: { username, password, name: `Cached ${users}`, permissions } });
    expect(created.status).toBe(200);
    const login = await p.api(a, 'POST', '/auth/login', { body: { username, password, grant_type: 'password' } });
    expect(login.status).toBe(200);
    return {
      id: created.body.data.id as string,
      bearer: { authorization: `Bearer ${login.body.data.access_token}` },
      refreshToken: login.body.data.refresh_token as string,
    };
  };

  const newKey = async (permissions: string[]) => {
    const created = await p.api(a, 'POST', '/api-keys', { headers: admin, body: { name: `cached key ${++users}`, permissions } });
    expect(created.status).toBe(200);
    return { id: created.body.data.id as string, key: created.body.data.key as string };
  };

  it('refuses a revoked API key', async () => {
    const k = await newKey(['project:read']);
    await warm('GET', '/projects?limit=1', { 'x-api-key': k.key });
    expect((await p.api(a, 'DELETE', `/api-keys/${k.id}`, { headers: admin })).status).toBe(200);
    const res = await p.api(b, 'GET', '/projects?limit=1', { headers: { 'x-api-key': k.key } });
    expect([res.status, res.body.code]).toEqual([401, 401001]);
  });

  it('refuses the previous value of a key rolled without a grace period, and takes the new one', async () => {
    const k = await newKey(['project:read']);
    await warm('GET', '/projects?limit=1', { 'x-api-key': k.key });
    const rolled = await p.api(a, 'POST', `/api-keys/${k.id}/roll`, { headers: admin, body: { grace_period_seconds: 0 } });
    expect(rolled.status).toBe(200);
    const old = await p.api(b, 'GET', '/projects?limit=1', { headers: { 'x-api-key': k.key } });
    expect([old.status, old.body.code]).toEqual([401, 401001]);
    const fresh = await p.api(b, 'GET', '/projects?limit=1', { headers: { 'x-api-key': rolled.body.data.key } });
    expect(fresh.status).toBe(200);
  });

  it('refuses the access token of a session signed out', async () => {
    const u = await newUser(['project:read']);
    await warm('GET', '/projects?limit=1', u.bearer);
    const out = await p.api(a, 'POST', '/auth/logout', { body: { refresh_token: u.refreshToken } });
    expect(out.status).toBe(200);
    const res = await p.api(b, 'GET', '/projects?limit=1', { headers: u.bearer });
    expect([res.status, res.body.code]).toEqual([401, 401003]);
  });

  it('refuses a user disabled by an administrator', async () => {
    const u = await newUser(['project:read']);
    await warm('GET', '/projects?limit=1', u.bearer);
    expect((await p.api(a, 'PATCH', `/users/${u.id}`, { headers: admin, body: { disabled: true } })).status).toBe(200);
    const res = await p.api(b, 'GET', '/projects?limit=1', { headers: u.bearer });
    expect([res.status, res.body.code]).toEqual([401, 401006]);
  });

  it('refuses a permission taken from a user', async () => {
    const u = await newUser(['project:read', 'data:read']);
    await warm('GET', '/projects?limit=1', u.bearer);
    expect((await p.api(a, 'PATCH', `/users/${u.id}`, { headers: admin, body: { permissions: ['data:read'] } })).status).toBe(200);
    const res = await p.api(b, 'GET', '/projects?limit=1', { headers: u.bearer });
    expect([res.status, res.body.code, res.body.field ?? null]).toEqual([401, 401004, null]);
    // the permission it kept still works
    expect((await p.api(b, 'GET', '/me', { headers: u.bearer })).status).toBe(200);
  });

  it('refuses a member removed from a project', async () => {
    const project = await p.api(a, 'POST', '/projects', { headers: admin, body: { name: 'Cached membership', number: 'CM-1', start_date: '2026-01-01' } });
    expect(project.status).toBe(200);
    const projectId = project.body.data.id as string;
    const u = await newUser(['project:read']);
    expect((await p.api(a, 'POST', `/projects/${projectId}/members`, { headers: admin, body: { user_id: u.id, role: 'viewer' } })).status).toBe(200);
    await warm('GET', `/projects/${projectId}`, u.bearer);
    expect((await p.api(a, 'DELETE', `/projects/${projectId}/members/${u.id}`, { headers: admin })).status).toBe(200);
    const res = await p.api(b, 'GET', `/projects/${projectId}`, { headers: u.bearer });
    expect([res.status, res.body.code]).toEqual([403, 403001]);
  });

  it("refuses a feature once the tenant is moved to a plan without it, and once the tenant's plan drops it", async () => {
    const k = await newKey(['project:read', 'project:write', 'data:read', 'report:read', 'report:write']);
    const project = await p.api(a, 'POST', '/projects', { headers: admin, body: { name: 'Cached plan', number: 'CP-1', start_date: '2026-01-01' } });
    expect(project.status).toBe(200);
    const path = `/projects/${project.body.data.id}/reports`;
    // An empty body: the plan's feature is checked before the body, which is then refused (nothing is made).
    const before = await p.api(b, 'POST', path, { headers: { 'x-api-key': k.key }, body: {} });
    expect([before.status, before.body.code]).toEqual([422, 422101]);
    await warm('POST', path, { 'x-api-key': k.key }, 422, {});

    const limits = { apiPerMinute: 0, dataRecordsPerMinute: 0, reportsPerHour: 0, concurrentRequests: 0 };
    await id.upsertPlan({ name: 'cached-without-reports', features: ['sandbox', 'oauth', 'data_batches'], limits }, operator);
    await id.setTenantPlan({ tenantId, plan: 'cached-without-reports' }, operator);
    const moved = await p.api(b, 'POST', path, { headers: { 'x-api-key': k.key }, body: {} });
    expect([moved.status, moved.body.code]).toEqual([403, 403004]);

    // Back on a plan with reports; then that plan itself loses the feature.
    await id.upsertPlan({ name: 'cached-with-reports', features: ['sandbox', 'oauth', 'reports', 'data_batches'], limits }, operator);
    await id.setTenantPlan({ tenantId, plan: 'cached-with-reports' }, operator);
    await warm('POST', path, { 'x-api-key': k.key }, 422, {});
    await id.upsertPlan({ name: 'cached-with-reports', features: ['sandbox', 'oauth', 'data_batches'], limits }, operator);
    const dropped = await p.api(b, 'POST', path, { headers: { 'x-api-key': k.key }, body: {} });
    expect([dropped.status, dropped.body.code]).toEqual([403, 403004]);
    await id.setTenantPlan({ tenantId, plan: 'standard' }, operator);
  });
});
