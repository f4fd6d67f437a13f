import { identity } from '@mp/contracts';
import type { CallerContext, PromiseClient } from '@mp/grpc';
import { platformClient, type ApiResponse } from '@mp/testing';
import { startSeparatePlatform, type Replica, type SeparatePlatform } from './support/separate-processes.js';

// ADR 0119: each gateway replica caches what identity answers per credential (who a key or a
// session stands for, its permissions, its tenant's plan), used only while the tenant's auth
// versions in Redis are those it was read at. Two gateway replicas as processes of their own, with
// identity and projects, on real PostgreSQL, NATS and Redis. For each kind of change: both caches
// are warmed (the replica's /metrics shows the credential answered from its cache), the change is
// made through replica A, and the very next request on replica B, with no wait, is refused with
// the code the change calls for.
describe('credential caches of two gateway replicas (ADR 0119)', () => {
  let p: SeparatePlatform;
  let a: Replica;
  let b: Replica;
  let adminBearer: Record<string, string>;
  let operator: PromiseClient<identity.IdentityServer>;
  let userCount = 0;
  const system: CallerContext = {
    requestId: 'req_cachetesttesttesttest',
    tenantId: '',
    environment: 'live',
    principalId: 'operator',
    principalType: 'system',
    permissions: [],
  };

  const ok = (res: ApiResponse) => {
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text}`);
    return res.body.data;
  };
  const refused = (res: ApiResponse, code: number) => {
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: Math.floor(code / 1000), code });
    expect(typeof res.body.data.suggestion).toBe('string');
  };
  const hits = async (gw: Replica): Promise<number> => {
    const m = await p.ops(gw, '/metrics');
    return Number(/^mp_gateway_credential_cache_hits_total (\d+)$/m.exec(m.text)?.[1] ?? NaN);
  };
  /**
   * Warms the cache of both replicas for a credential: the first answer records the credential's
   * tenant, the second is cached, the third must come from the cache (the hit counter moves).
   */
  const warm = async (path: string, headers: Record<string, string>) => {
    for (const gw of [a, b]) {
      ok(await p.api(gw, 'GET', path, { headers }));
      ok(await p.api(gw, 'GET', path, { headers }));
      const before = await hits(gw);
      ok(await p.api(gw, 'GET', path, { headers }));
      expect(await hits(gw)).toBe(before + 1);
    }
  };
  const newKey = async (permissions: string[]) => {
    const created = ok(await p.api(a, 'POST', '/api-keys', { body: { name: `cache ${++userCount}`, permissions }, headers: adminBearer }));
    return { id: created.id as string, headers: { 'x-api-key': created.key as string } };
  };
  /** A user of the administrator's tenant, signed in through replica A. */
  const newUser = async (permissions: string[]) => {
    const username = `cache.user.${process.pid}.${++userCount}`;
    const password = 'cache user password 0123';
    const user = ok(await p.api(a, 'POST', '/users', { body: { username, name: `Cache user ${userCount}`, password, permissions }, headers: adminBearer }));
    const login = ok(await p.api(a, 'POST', '/auth/login', { body: { username, password, grant_type: 'password' } }));
    return { id: user.id as string, headers: { authorization: `Bearer ${login.access_token}` }, refreshToken: login.refresh_token as string };
  };

  beforeAll(async () => {
    p = await startSeparatePlatform({ gateway: 2 }, { MP_LIMIT_AUTH_PER_MINUTE: '1000' });
    [a, b] = p.of('gateway') as [Replica, Replica];
    const login = ok(await p.api(a, 'POST', '/auth/login', { body: { ...p.admin, grant_type: 'password' } }));
    adminBearer = { authorization: `Bearer ${login.access_token}` };
    operator = platformClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, p.env.MP_IDENTITY_ADDR!, p.keys, 'identity');
  }, 180_000);

  afterAll(async () => {
    operator?.close();
    await p?.stop();
  });

  it('a revoked API key is refused by the other replica at the next request (401001)', async () => {
    const key = await newKey(['project:read']);
    await warm('/projects?limit=1', key.headers);
    ok(await p.api(a, 'DELETE', `/api-keys/${key.id}`, { headers: adminBearer }));
    refused(await p.api(b, 'GET', '/projects?limit=1', { headers: key.headers }), 401001);
  });

  it('a rolled API key: the previous value is refused by the other replica at the next request, the new one works (401001)', async () => {
    const key = await newKey(['project:read']);
    await warm('/projects?limit=1', key.headers);
    const rolled = ok(await p.api(a, 'POST', `/api-keys/${key.id}/roll`, { body: { grace_period_seconds: 0 }, headers: adminBearer }));
    refused(await p.api(b, 'GET', '/projects?limit=1', { headers: key.headers }), 401001);
    ok(await p.api(b, 'GET', '/projects?limit=1', { headers: { 'x-api-key': rolled.key } }));
  });

  it('after a logout the access token is refused by the other replica at the next request (401003)', async () => {
    const user = await newUser(['project:read']);
    await warm('/projects?limit=1', user.headers);
    ok(await p.api(a, 'POST', '/auth/logout', { body: { refresh_token: user.refreshToken } }));
    refused(await p.api(b, 'GET', '/projects?limit=1', { headers: user.headers }), 401003);
  });

  it('a disabled user is refused by the other replica at the next request (401006)', async () => {
    const user = await newUser(['project:read']);
    await warm('/projects?limit=1', user.headers);
    ok(await p.api(a, 'PATCH', `/users/${user.id}`, { body: { disabled: true }, headers: adminBearer }));
    refused(await p.api(b, 'GET', '/projects?limit=1', { headers: user.headers }), 401006);
  });

  it('a permission taken from a user is refused by the other replica at the next request (401004)', async () => {
    const user = await newUser(['project:read', 'data:read']);
    await warm('/projects?limit=1', user.headers);
    ok(await p.api(a, 'PATCH', `/users/${user.id}`, { body: { permissions: ['data:read'] }, headers: adminBearer }));
    refused(await p.api(b, 'GET', '/projects?limit=1', { headers: user.headers }), 401004);
  });

  it('a user removed from a project is refused by the other replica at the next request (403001)', async () => {
    const project = ok(
      await p.api(a, 'POST', '/projects', { body: { name: 'Cache membership', number: `CM-${userCount}`, start_date: '2024-01-01' }, headers: adminBearer }),
    );
    const user = await newUser(['project:read']);
    ok(await p.api(a, 'POST', `/projects/${project.id}/members`, { body: { user_id: user.id, role: 'viewer' }, headers: adminBearer }));
    await warm(`/projects/${project.id}`, user.headers);
    ok(await p.api(a, 'DELETE', `/projects/${project.id}/members/${user.id}`, { headers: adminBearer }));
    refused(await p.api(b, 'GET', `/projects/${project.id}`, { headers: user.headers }), 403001);
  });

  /** A tenant of its own on `plan` (operator calls), and an administrator's API key of it. */
  const tenantOn = async (plan: string) => {
    const n = ++userCount;
    const created = await operator.createTenant(
      { name: `Cache plan tenant ${n}`, plan, adminUsername: `cache.plan.${process.pid}.${n}`, adminPassword: 'cache plan password 0123' },
      system,
    );
    const ctx: CallerContext = {
      ...system,
      tenantId: created.tenant!.id,
      principalId: created.admin!.id,
      principalType: 'user',
      permissions: ['system:admin', 'report:write', 'project:read'],
    };
    const key = (await operator.createApiKey({ name: 'cache plan', permissions: ['system:admin', 'report:write', 'project:read'] }, ctx)).key;
    return { id: created.tenant!.id, headers: { 'x-api-key': key } };
  };
  const limits = { apiPerMinute: 0, dataRecordsPerMinute: 0, reportsPerHour: 0, concurrentRequests: 0 };
  const WITH_REPORTS = ['sandbox', 'oauth', 'reports', 'data_batches'];
  const WITHOUT_REPORTS = ['sandbox', 'oauth', 'data_batches'];
  // The feature is checked before the body is read: an empty body passes it (and is then refused
  // as a body), so the same request shows the plan in force on that replica.
  const generateReport = (gw: Replica, headers: Record<string, string>) =>
    p.api(gw, 'POST', '/projects/prj_0000000000000000000000/reports', { body: {}, headers });
  const reportsAllowed = async (gw: Replica, headers: Record<string, string>) => {
    const res = await generateReport(gw, headers);
    expect(res.status).not.toBe(403);
    expect(res.status).toBeGreaterThanOrEqual(400);
  };

  it('a tenant moved to a plan without a feature is refused it by the other replica at the next request (403004)', async () => {
    await operator.upsertPlan({ name: 'cache-no-reports', features: WITHOUT_REPORTS, limits }, system);
    const tenant = await tenantOn('standard');
    await warm('/projects?limit=1', tenant.headers);
    await reportsAllowed(b, tenant.headers);
    await operator.setTenantPlan({ tenantId: tenant.id, plan: 'cache-no-reports' }, system);
    refused(await generateReport(b, tenant.headers), 403004);
  });

  it('a plan that loses a feature: a tenant on it is refused it by the other replica at the next request (403004)', async () => {
    await operator.upsertPlan({ name: 'cache-shrinking', features: WITH_REPORTS, limits }, system);
    const tenant = await tenantOn('cache-shrinking');
    await warm('/projects?limit=1', tenant.headers);
    await reportsAllowed(b, tenant.headers);
    await operator.upsertPlan({ name: 'cache-shrinking', features: WITHOUT_REPORTS, limits }, system);
    refused(await generateReport(b, tenant.headers), 403004);
  });
});
