import { waitUntil, type ApiResponse } from '@mp/testing';
import { freePort, startPrivateRedis } from '../support/identity.js';
import type { StartedProcess } from '../support/process.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// The credential cache (ADR 0119) when Redis, which holds the auth versions, is down: the gateway
// uses no cached answer (it asks identity on every request, and requests go on), and a change of a
// principal that cannot bump the versions is not made (the key revoked while Redis is down keeps
// working, as identity says), rather than made where the caches would not see it. With Redis back
// (empty: a new epoch) the revocation goes through and is refused at the next request.
describe('credential cache with Redis down', () => {
  let t: TestPlatform;
  let redis: StartedProcess;
  let port: number;
  let admin: Record<string, string>;
  const hits = async () => Number(/^mp_gateway_credential_cache_hits_total (\d+)$/m.exec((await t.platform.gateway.metrics()).text)?.[1]);
  const ok = (res: ApiResponse) => {
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text}`);
    return res.body.data;
  };

  beforeAll(async () => {
    port = await freePort();
    redis = await startPrivateRedis(port);
    t = await startTestPlatform({ MP_REDIS_URL: `redis://127.0.0.1:${port}`, MP_REDIS_PREFIX: 'mpt:cache-down' });
    admin = { authorization: `Bearer ${await t.login()}` };
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await redis?.stop('SIGKILL');
  });

  it('asks identity while Redis is down, refuses to revoke without bumping, and revokes once it is back', async () => {
    const created = ok(await t.api('POST', '/api-keys', { headers: admin, body: { name: 'cache down', permissions: ['project:read'] } }));
    const key = { 'x-api-key': created.key as string };
    for (let i = 0; i < 2; i++) ok(await t.api('GET', '/projects?limit=1', { headers: key }));
    const warm = await hits();
    ok(await t.api('GET', '/projects?limit=1', { headers: key }));
    expect(await hits()).toBe(warm + 1);

    await redis.stop('SIGKILL');
    ok(await t.api('GET', '/projects?limit=1', { headers: key }));
    expect(await hits()).toBe(warm + 1);
    const revoke = await t.api('DELETE', `/api-keys/${created.id}`, { headers: admin });
    expect(revoke.status).toBe(500);
    expect(revoke.body.code).toBe(500001);
    // not revoked: identity still accepts the key
    ok(await t.api('GET', '/projects?limit=1', { headers: key }));

    redis = await startPrivateRedis(port);
    // identity's and the gateway's Redis clients reconnect by themselves (ioredis backs off)
    await waitUntil(async () => (await t.api('DELETE', `/api-keys/${created.id}`, { headers: admin })).status === 200 || null, {
      intervalMs: 200,
      message: 'identity did not reach Redis again',
    });
    const refused = await t.api('GET', '/projects?limit=1', { headers: key });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 401001 });
  });
});
