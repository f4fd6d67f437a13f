import type { ApiResponse } from '@mp/testing';
import { queryTestDatabase, waitUntil } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import {
  call,
  createTenant,
  freePort,
  identityClient,
  RAISED_LIMITS,
  startParkingReceiver,
  startPrivateRedis,
  startSecondGateway,
  tenantKey,
  upsertPlan,
} from '../support/identity.js';

// docs/rules.md#rate-limits on real Redis and PostgreSQL, with two gateway replicas sharing one Redis key
// prefix: every limit is counted once for the whole deployment. Limits are per tenant and
// environment (authentication: per client address, in both environments together) and set per tenant by its plan; each test
// uses a tenant of its own, set up through identity's operator RPCs so that no sign-in counts
// against the authentication limit.
describe('rate limits', () => {
  const env = { ...RAISED_LIMITS, MP_LIMIT_AUTH_PER_MINUTE: '6' };
  let t: TestPlatform;
  let second: Awaited<ReturnType<typeof startSecondGateway>>;
  let id: ReturnType<typeof identityClient>;
  let bases: [string, string];

  /** The headers of docs/rules.md#rate-limit-headers on a response of a limited route. */
  function expectLimitHeaders(res: ApiResponse, limit: number, remaining: number): void {
    expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
    expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
    const reset = Number(res.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);
  }
  function expectRetryAfter(res: ApiResponse, max: number): void {
    const seconds = Number(res.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(max);
  }

  beforeAll(async () => {
    t = await startTestPlatform(env);
    second = await startSecondGateway(t, env);
    bases = [t.base, second.base];
    id = identityClient(t);
    await upsertPlan(id, 'rl-api', ['sandbox'], { apiPerMinute: 4 });
    await upsertPlan(id, 'rl-concurrency', ['sandbox'], { concurrentRequests: 1 });
    await upsertPlan(id, 'rl-data', ['sandbox'], { dataRecordsPerMinute: 10 });
  });
  afterAll(async () => {
    id?.close();
    await second?.gateway.stop();
    await t?.stop();
  });

  it('429001: one request limit per tenant and environment, shared by two gateway replicas, with the full envelope and headers', async () => {
    const tenant = await createTenant(id, 'rl-api');
    const key = await tenantKey(id, tenant, ['project:read', 'project:write']);
    const h = { 'x-api-key': key };
    for (let i = 0; i < 4; i++) {
      const res = await call(bases[i % 2]!, 'GET', '/projects', { headers: h });
      expect(res.status).toBe(200);
      expectLimitHeaders(res, 4, 3 - i);
      expect(res.headers['retry-after']).toBeUndefined();
    }
    const refused = await call(second.base, 'POST', '/projects', { headers: h, body: { name: 'Over the limit', number: 'RL-1' } });
    expectError(refused, 429001);
    expectLimitHeaders(refused, 4, 0);
    expectRetryAfter(refused, 60);
    expect(refused.body.data.detail).toContain('4 API requests per minute');
    expectError(await call(t.base, 'GET', '/projects', { headers: h }), 429001);
    // refused requests reach no service
    expect(await queryTestDatabase(t.db.url, 'SELECT id FROM projects.projects WHERE tenant_id = $1', [tenant.id])).toEqual([]);

    // the sandbox of the same tenant counts separately, and so does another tenant (default limit)
    const sandbox = await call(second.sandboxBase, 'GET', '/projects', { headers: { 'x-api-key': await tenantKey(id, tenant, ['project:read'], 'sandbox') } });
    expect(sandbox.status).toBe(200);
    expectLimitHeaders(sandbox, 4, 3);
    const other = await createTenant(id);
    const otherRes = await call(t.base, 'GET', '/projects', { headers: { 'x-api-key': await tenantKey(id, other, ['project:read']) } });
    expect(otherRes.status).toBe(200);
    expectLimitHeaders(otherRes, 100000, 99999);
  });

  it('applies a tenant plan change from the next request', async () => {
    const tenant = await createTenant(id, 'rl-api');
    const h = { 'x-api-key': await tenantKey(id, tenant, ['project:read']) };
    expectLimitHeaders(await call(t.base, 'GET', '/projects', { headers: h }), 4, 3);
    await upsertPlan(id, 'rl-api-plus', ['sandbox'], { apiPerMinute: 7 });
    await id.setTenantPlan(
      { tenantId: tenant.id, plan: 'rl-api-plus' },
      { requestId: 'req_e2etesttesttesttest', tenantId: '', environment: 'live', principalId: 'op', principalType: 'system', permissions: [] },
    );
    // a new limit is a new window (ADR 0011)
    expectLimitHeaders(await call(second.base, 'GET', '/projects', { headers: h }), 7, 6);
  });

  it('429004: concurrent requests per tenant counted across both replicas', async () => {
    const tenant = await createTenant(id, 'rl-concurrency');
    const h = { 'x-api-key': await tenantKey(id, tenant, ['system:admin', 'project:read']) };
    const receiver = await startParkingReceiver();
    try {
      const webhook = await call(t.base, 'POST', '/webhooks', { headers: h, body: { name: 'slow receiver', url: receiver.url, events: ['project.created'] } });
      expect(webhook.status).toBe(200);
      // A test delivery waits for the receiver's answer, so this request stays in flight.
      const inFlight = call(t.base, 'POST', `/webhooks/${webhook.body.data.id}/test`, { headers: h });
      await receiver.arrived(1);
      const refused = await call(second.base, 'GET', '/projects', { headers: h });
      expectError(refused, 429004);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.data.detail).toContain('At most 1 requests may be in flight');
      // The headers describe the limit that refused: one request in flight allowed, none left.
      expect(refused.headers['x-ratelimit-limit']).toBe('1');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
      receiver.release();
      expect((await inFlight).status).toBe(200);
      expect((await call(second.base, 'GET', '/projects', { headers: h })).status).toBe(200);
    } finally {
      await receiver.close();
    }
  });

  it('429002: data records per minute per tenant (its plan), counted across both replicas', async () => {
    const tenant = await createTenant(id, 'rl-data');
    const h = { 'x-api-key': await tenantKey(id, tenant, ['project:write', 'data:write']) };
    const project = (await call(t.base, 'POST', '/projects', { headers: h, body: { name: 'Quay wall', number: 'QW-1' } })).body.data.id;
    const records = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => ({
        point_id: 'pt_00000000000000000000',
        measured_at: new Date(Date.UTC(2026, 2, 1) + (from + i) * 1000).toISOString(),
        values: { dz: 1 },
      }));
    // The project has not started: the service refuses the write (422303) after it was counted.
    expectError(await call(t.base, 'POST', `/projects/${project}/data`, { headers: h, body: { records: records(6, 0) } }), 422303, 'project_id');
    const refused = await call(second.base, 'POST', `/projects/${project}/data`, { headers: h, body: { records: records(5, 6) } });
    expectError(refused, 429002, 'records');
    expectLimitHeaders(refused, 10, 4);
    expectRetryAfter(refused, 60);
    expect(await queryTestDatabase(t.db.url, 'SELECT id FROM monitoring_data.data_records')).toEqual([]);
  });

  it('429005: authentication requests per client address, shared by both replicas and both environments, before any password is checked', async () => {
    // A username of its own per attempt: five failures of one username from one address lock it
    // (401007, ADR 0019), and this test is about the address's request limit.
    const attempt = (base: string, n = 0) =>
      call(base, 'POST', '/auth/login', { body: { username: `nobody.here.${n}`, password: 'wrong password', grant_type: 'password' } });
    // Live on one replica, sandbox on the other: one count, not one per environment.
    const alternating = [t.base, second.sandboxBase];
    for (let i = 0; i < 6; i++) {
      const res = await attempt(alternating[i % 2]!, i);
      expectError(res, 401008, 'password');
      expectLimitHeaders(res, 6, 5 - i);
    }
    const refused = await attempt(t.base);
    expectError(refused, 429005);
    expectLimitHeaders(refused, 6, 0);
    expectRetryAfter(refused, 60);
    const inSandbox = await attempt(t.sandboxBase);
    expectError(inSandbox, 429005);
    expectLimitHeaders(inSandbox, 6, 0);
    // the token endpoint and the consent page count as authentication too
    const token = await call(second.base, 'POST', '/oauth/token', {
      body: { grant_type: 'authorization_code', client_id: 'cli_aaaaaaaaaaaaaaaaaaaa', code: 'x', redirect_uri: 'https://a.example/cb' },
    });
    expectError(token, 429005);
    expectRetryAfter(token, 60);
    const page = await call(t.base, 'GET', '/oauth/authorize?client_id=cli_aaaaaaaaaaaaaaaaaaaa');
    expect(page.status).toBe(429);
    expect(page.text).toContain('Error 429005');
    expectRetryAfter(page, 60);
  });

  describe('when Redis is down', () => {
    it('keeps serving and keeps limiting, per replica, with the same rules; no request fails because of it', async () => {
      const port = await freePort();
      let redis = await startPrivateRedis(port);
      const own = await startSecondGateway(t, { ...env, MP_REDIS_URL: `redis://127.0.0.1:${port}`, MP_REDIS_PREFIX: 'mpt:redis-down' });
      try {
        const tenant = await createTenant(id, 'rl-api');
        const h = { 'x-api-key': await tenantKey(id, tenant, ['project:read']) };
        expectLimitHeaders(await call(own.base, 'GET', '/projects', { headers: h }), 4, 3);
        expectLimitHeaders(await call(own.base, 'GET', '/projects', { headers: h }), 4, 2);

        await redis.stop('SIGKILL');
        // The replica falls back to in-process counters with the same limit: requests go on,
        // counted afresh on this replica, and the limit still bites.
        for (let i = 0; i < 4; i++) {
          const res = await call(own.base, 'GET', '/projects', { headers: h });
          expect(res.status).toBe(200);
          expectLimitHeaders(res, 4, 3 - i);
        }
        const refused = await call(own.base, 'GET', '/projects', { headers: h });
        expectError(refused, 429001);
        expectRetryAfter(refused, 60);
        expect((await call(own.base.replace(/\/v3$/, ''), 'GET', '/readyz')).status).toBe(200);

        // Redis back: the replica reconnects by itself and counts in the shared store again.
        redis = await startPrivateRedis(port);
        const tenant2 = await createTenant(id, 'rl-api');
        const h2 = { 'x-api-key': await tenantKey(id, tenant2, ['project:read']) };
        const { Redis } = await import('ioredis');
        const probe = new Redis(`redis://127.0.0.1:${port}`);
        try {
          // waits for the reconnection (ioredis backs off), then finds the tenant's counter in Redis
          const keys = await waitUntil(
            async () => {
              expect((await call(own.base, 'GET', '/projects', { headers: h2 })).status).not.toBeGreaterThanOrEqual(500);
              const found = await probe.keys(`mpt:redis-down:api:4:${tenant2.id}:live`);
              return found.length > 0 ? found : null;
            },
            { intervalMs: 200, message: 'the gateway did not count in Redis again after it came back' },
          );
          expect(keys).toHaveLength(1);
        } finally {
          probe.disconnect();
        }
      } finally {
        await own.gateway.stop();
        await redis.stop('SIGKILL');
      }
    });
  });
});
