import { createHash } from 'node:crypto';
import type { CallerContext } from '@mp/grpc';
import { anon, rejection, startTestIdentity, type TestIdentity } from './support.js';

describe('identity: API keys', () => {
  let t: TestIdentity;
  let live: CallerContext;
  let sandbox: CallerContext;
  const authenticate = (key: string, environment: 'live' | 'sandbox' = 'live') => t.client.authenticateApiKey({ key, environment }, anon(environment));

  beforeAll(async () => {
    t = await startTestIdentity();
    live = await t.adminContext('live');
    sandbox = await t.adminContext('sandbox');
  });
  afterAll(() => t?.stop());
  afterEach(() => t?.clock.reset());

  it('creates a live key mp_live_ + 32 characters, shown once, and authenticates it as the key principal', async () => {
    const created = await t.client.createApiKey({ name: '  Data logger  ', permissions: ['data:write', 'data:read', 'data:write'] }, live);
    expect(created.key).toMatch(/^mp_live_[A-Za-z0-9]{32}$/);
    expect(created.apiKey).toMatchObject({
      name: 'Data logger',
      permissions: ['data:write', 'data:read'],
      environment: 'live',
      prefix: created.key.slice(0, 12),
    });
    expect(created.apiKey!.id).toMatch(/^key_[0-9a-z]{20}$/);
    expect(created.apiKey!.revokedAt).toBeUndefined();

    const principal = await authenticate(created.key);
    expect(principal).toEqual({
      tenantId: live.tenantId,
      environment: 'live',
      principalId: created.apiKey!.id,
      principalType: 'api_key',
      permissions: ['data:write', 'data:read'],
      name: 'Data logger',
      plan: {
        name: 'standard',
        features: ['sandbox', 'oauth', 'reports', 'data_batches'],
        limits: { apiPerMinute: 0, dataRecordsPerMinute: 0, reportsPerHour: 0, concurrentRequests: 0 },
      },
      // The auth versions it bumps (ADR 0119): this process's memory, as the test gives no Redis.
      versionsStore: expect.stringMatching(/^memory:[0-9a-f]{16}:mp:rl$/),
    });

    const fetched = await t.client.getApiKey({ id: created.apiKey!.id }, live);
    expect(fetched).toMatchObject({ id: created.apiKey!.id, name: 'Data logger' });
    expect(fetched.lastUsedAt).toBeDefined();
    expect(JSON.stringify(fetched)).not.toContain(created.key);
  });

  it('stores only the SHA-256 of the value: no column holds the key', async () => {
    const created = await t.client.createApiKey({ name: 'hash check', permissions: ['project:read'] }, live);
    const rows = await t.sql('SELECT * FROM identity.api_keys WHERE id = $1', [created.apiKey!.id]);
    expect(rows).toHaveLength(1);
    for (const value of Object.values(rows[0]!)) expect(JSON.stringify(value) ?? '').not.toContain(created.key);
    expect(rows[0]!.key_hash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(rows[0]!.prefix).toBe(created.key.slice(0, 12));
  });

  it('writes last_used_at at most once a minute', async () => {
    const { apiKey, key } = await t.client.createApiKey({ name: 'usage', permissions: ['project:read'] }, live);
    await authenticate(key);
    const used = async () => (await t.sql<{ last_used_at: string }>('SELECT last_used_at FROM identity.api_keys WHERE id = $1', [apiKey!.id]))[0]!.last_used_at;
    const first = await used();
    expect(first).not.toBeNull();
    t.clock.advance(30);
    await authenticate(key);
    expect(await used()).toEqual(first);
    t.clock.advance(31);
    await authenticate(key);
    expect(new Date(await used()).getTime()).toBeGreaterThan(new Date(first).getTime());
  });

  it('makes sandbox keys mp_test_… that the live environment refuses with 401001, and the other way round', async () => {
    const sb = await t.client.createApiKey({ name: 'sandbox key', permissions: ['project:read'] }, sandbox);
    expect(sb.key).toMatch(/^mp_test_[A-Za-z0-9]{32}$/);
    expect(sb.apiKey!.environment).toBe('sandbox');
    expect((await authenticate(sb.key, 'sandbox')).environment).toBe('sandbox');
    expect(await rejection(authenticate(sb.key, 'live'))).toMatchObject({ code: '401001', field: null });

    const lv = await t.client.createApiKey({ name: 'live key', permissions: ['project:read'] }, live);
    expect(await rejection(authenticate(lv.key, 'sandbox'))).toMatchObject({ code: '401001', field: null });
  });

  it('refuses unknown, malformed, revoked and expired keys with one and the same 401001', async () => {
    const unknown = await rejection(authenticate('mp_live_' + 'A'.repeat(32)));
    expect(unknown).toMatchObject({ code: '401001', field: null });
    expect(await rejection(authenticate('hello'))).toMatchObject({ code: '401001', field: null, detail: unknown.detail });

    const { apiKey, key } = await t.client.createApiKey({ name: 'to revoke', permissions: ['project:read'] }, live);
    await authenticate(key);
    const revoked = await t.client.revokeApiKey({ id: apiKey!.id }, live);
    expect(revoked.revokedAt).toBeDefined();
    expect(await rejection(authenticate(key))).toMatchObject({ code: '401001', field: null, detail: unknown.detail });
    const again = await t.client.revokeApiKey({ id: apiKey!.id }, live);
    expect(again.revokedAt).toBe(revoked.revokedAt);

    const expiring = await t.client.createApiKey(
      { name: 'short lived', permissions: ['project:read'], expiresAt: new Date(Date.now() + 3600_000).toISOString() },
      live,
    );
    expect(expiring.apiKey!.expiresAt).toBeDefined();
    await authenticate(expiring.key);
    t.clock.advance(3601);
    expect(await rejection(authenticate(expiring.key))).toMatchObject({ code: '401001', field: null, detail: unknown.detail });
  });

  it('validates creation: name, permissions and expires_at, with the offending field', async () => {
    const create = (req: { name: string; permissions: string[]; expiresAt?: string }, ctx = live) => rejection(t.client.createApiKey(req, ctx));
    expect(await create({ name: 'k', permissions: ['project:read', 'project:delete'] })).toMatchObject({ code: '422103', field: 'permissions[1]' });
    expect(await create({ name: 'k', permissions: [] })).toMatchObject({ code: '422101', field: 'permissions' });
    expect(await create({ name: '   ', permissions: ['project:read'] })).toMatchObject({ code: '400003', field: 'name' });
    expect(await create({ name: 'x'.repeat(101), permissions: ['project:read'] })).toMatchObject({ code: '400003', field: 'name' });
    expect(await create({ name: 'k', permissions: ['project:read'], expiresAt: 'next tuesday' })).toMatchObject({ code: '400004', field: 'expires_at' });
    expect(await create({ name: 'k', permissions: ['project:read'], expiresAt: '2020-01-01T00:00:00Z' })).toMatchObject({
      code: '422103',
      field: 'expires_at',
    });
    // a caller cannot hand out a permission it does not hold
    const narrow = await t.adminContext('live', ['system:admin', 'project:read']);
    expect(await create({ name: 'k', permissions: ['project:read', 'project:write'] }, narrow)).toMatchObject({ code: '401004', field: 'permissions[1]' });
    const rows = await t.sql("SELECT id FROM identity.api_keys WHERE name = 'k'");
    expect(rows).toHaveLength(0);
  });

  it('gets and revokes only the caller tenant and environment keys: 400004 for a malformed id, 404010 otherwise', async () => {
    const { apiKey } = await t.client.createApiKey({ name: 'mine', permissions: ['project:read'] }, live);
    expect(await rejection(t.client.getApiKey({ id: 'nope' }, live))).toMatchObject({ code: '400004', field: 'key_id' });
    expect(await rejection(t.client.revokeApiKey({ id: 'prj_aaaaaaaaaaaaaaaaaaaa' }, live))).toMatchObject({ code: '400004', field: 'key_id' });
    expect(await rejection(t.client.getApiKey({ id: 'key_aaaaaaaaaaaaaaaaaaaa' }, live))).toMatchObject({ code: '404010', field: 'key_id' });
    expect(await rejection(t.client.getApiKey({ id: apiKey!.id }, sandbox))).toMatchObject({ code: '404010', field: 'key_id' });
    const otherTenant = { ...live, tenantId: 'ten_otherotherotherothe' };
    expect(await rejection(t.client.revokeApiKey({ id: apiKey!.id }, otherTenant))).toMatchObject({ code: '404010', field: 'key_id' });
    expect((await t.client.getApiKey({ id: apiKey!.id }, live)).revokedAt).toBeUndefined();
  });

  it('lists keys newest first with cursor pagination, scoped by tenant and environment', async () => {
    const ctx = { ...live, tenantId: 'ten_listlistlistlistlist' };
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) ids.push((await t.client.createApiKey({ name, permissions: ['task:read'] }, ctx)).apiKey!.id);
    await t.client.createApiKey({ name: 'sandbox one', permissions: ['task:read'] }, { ...ctx, environment: 'sandbox' });

    const first = await t.client.listApiKeys({ page: { limit: 2, cursor: '' } }, ctx);
    expect(first.items.map((k) => k.name)).toEqual(['three', 'two']);
    expect(first.page).toMatchObject({ hasMore: true });
    const second = await t.client.listApiKeys({ page: { limit: 2, cursor: first.page!.nextCursor! } }, ctx);
    expect(second.items.map((k) => k.id)).toEqual([ids[0]]);
    expect(second.page).toEqual({ hasMore: false });
    expect(JSON.stringify([first, second])).not.toMatch(/mp_live_[A-Za-z0-9]{32}/);
    expect(await rejection(t.client.listApiKeys({ page: { limit: 2, cursor: '!!' } }, ctx))).toMatchObject({ code: '400004', field: 'cursor' });
  });

  describe('rolling a key', () => {
    it('gives the key a new value (same id, name, permissions) while the previous one works for the grace period, 24 h by default', async () => {
      const { apiKey, key: oldValue } = await t.client.createApiKey({ name: 'logger', permissions: ['data:write'] }, live);
      const rolled = await t.client.rollApiKey({ id: apiKey!.id }, live);
      expect(rolled.key).toMatch(/^mp_live_[A-Za-z0-9]{32}$/);
      expect(rolled.key).not.toBe(oldValue);
      expect(rolled.apiKey).toMatchObject({ id: apiKey!.id, name: 'logger', permissions: ['data:write'], prefix: rolled.key.slice(0, 12) });
      const rolledAt = Date.parse(rolled.apiKey!.rolledAt!);
      expect(Date.parse(rolled.apiKey!.previousValueExpiresAt!) - rolledAt).toBe(86_400_000);

      expect((await authenticate(rolled.key)).principalId).toBe(apiKey!.id);
      expect((await authenticate(oldValue)).principalId).toBe(apiKey!.id);
      t.clock.advance(86_400 - 60);
      expect((await authenticate(oldValue)).principalId).toBe(apiKey!.id);
      t.clock.advance(61);
      expect(await rejection(authenticate(oldValue))).toMatchObject({ code: '401001', field: null });
      expect((await authenticate(rolled.key)).principalId).toBe(apiKey!.id);
      // the grace period is over: the key no longer shows one
      expect((await t.client.getApiKey({ id: apiKey!.id }, live)).previousValueExpiresAt).toBeUndefined();
      const [row] = await t.sql<{ key_hash: string }>('SELECT key_hash FROM identity.api_keys WHERE id = $1', [apiKey!.id]);
      expect(row!.key_hash).toBe(createHash('sha256').update(rolled.key).digest('hex'));
    });

    it('stops the previous value at once with grace_period_seconds 0, and a revocation ends every value', async () => {
      const { apiKey, key: first } = await t.client.createApiKey({ name: 'leaked', permissions: ['data:read'] }, live);
      const second = await t.client.rollApiKey({ id: apiKey!.id, gracePeriodSeconds: 3600 }, live);
      const third = await t.client.rollApiKey({ id: apiKey!.id, gracePeriodSeconds: 0 }, live);
      expect(third.apiKey!.previousValueExpiresAt).toBeDefined(); // the first roll's grace still runs
      expect(await rejection(authenticate(second.key))).toMatchObject({ code: '401001' });
      expect((await authenticate(first)).principalId).toBe(apiKey!.id);
      expect((await authenticate(third.key)).principalId).toBe(apiKey!.id);

      await t.client.revokeApiKey({ id: apiKey!.id }, live);
      for (const value of [first, third.key]) expect(await rejection(authenticate(value))).toMatchObject({ code: '401001' });
      expect(await rejection(t.client.rollApiKey({ id: apiKey!.id }, live))).toMatchObject({ code: '422103', field: 'key_id' });
    });

    it('validates the grace period and the key id, and rolls only keys of the caller tenant and environment', async () => {
      const { apiKey } = await t.client.createApiKey({ name: 'roll checks', permissions: ['data:read'] }, live);
      expect(await rejection(t.client.rollApiKey({ id: apiKey!.id, gracePeriodSeconds: 604_801 }, live))).toMatchObject({
        code: '400003',
        field: 'grace_period_seconds',
      });
      expect(await rejection(t.client.rollApiKey({ id: apiKey!.id, gracePeriodSeconds: -1 }, live))).toMatchObject({
        code: '400003',
        field: 'grace_period_seconds',
      });
      expect(await rejection(t.client.rollApiKey({ id: 'nope' }, live))).toMatchObject({ code: '400004', field: 'key_id' });
      expect(await rejection(t.client.rollApiKey({ id: apiKey!.id }, sandbox))).toMatchObject({ code: '404010', field: 'key_id' });
      expect(await rejection(t.client.rollApiKey({ id: apiKey!.id }, { ...live, tenantId: 'ten_otherotherotherothe' }))).toMatchObject({ code: '404010' });
      const [row] = await t.sql('SELECT rolled_at FROM identity.api_keys WHERE id = $1', [apiKey!.id]);
      expect(row).toEqual({ rolled_at: null });
      expect(await t.sql('SELECT key_id FROM identity.api_key_previous_values WHERE key_id = $1', [apiKey!.id])).toEqual([]);
    });
  });
});
