import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { memoryAuthVersions, type AuthVersions } from '@mp/ratelimit';
import { CredentialCache } from '../src/credential-cache.js';

// The cache's own rules (ADR 0119) on the embedded store (this process's auth versions); the
// invalidations across two gateway processes are test/faults/credential-cache-two-replicas.test.ts.
describe('credential cache', () => {
  let prefix = 0;
  let versions: AuthVersions;
  let now: number;
  let asked: number;
  const principal = (extra: Partial<identity.Principal> = {}): identity.Principal => ({
    tenantId: 'ten_a',
    environment: 'live',
    principalId: 'key_a',
    principalType: 'api_key',
    permissions: ['project:read'],
    name: 'key',
    plan: undefined,
    versionsStore: versions.id,
    ...extra,
  });
  const cache = (opts: { maxEntries?: number; ttlMs?: number } = {}) =>
    new CredentialCache(versions, { maxEntries: 10, ttlMs: 60_000, now: () => now, ...opts });
  const ask = (p: identity.Principal) => async () => {
    asked++;
    return p;
  };

  beforeEach(() => {
    versions = memoryAuthVersions(`test:${++prefix}`);
    now = Date.parse('2026-11-28T00:00:00Z');
    asked = 0;
  });

  it('asks identity for the first two answers of a key (the first names its tenant), then answers from the cache', async () => {
    const c = cache();
    for (let i = 0; i < 5; i++) expect(await c.principal('k', ask(principal()))).toEqual(principal());
    expect(asked).toBe(2);
    expect(c.counts).toEqual({ hits: 3, misses: 2 });
  });

  it('caches a credential that names its tenant from the first answer', async () => {
    const c = cache();
    await c.principal('k', ask(principal()), { tenantId: 'ten_a' });
    await c.principal('k', ask(principal()), { tenantId: 'ten_a' });
    expect(asked).toBe(1);
  });

  it("asks again after a bump of the entry's tenant or of every tenant, not of another tenant", async () => {
    const c = cache();
    const hint = { tenantId: 'ten_a' };
    await c.principal('k', ask(principal()), hint);
    await versions.bump('ten_b');
    await c.principal('k', ask(principal()), hint);
    expect(asked).toBe(1);
    await versions.bump('ten_a');
    await c.principal('k', ask(principal()), hint);
    expect(asked).toBe(2);
    await versions.bump(null);
    await c.principal('k', ask(principal()), hint);
    await c.principal('k', ask(principal()), hint);
    expect(asked).toBe(3);
  });

  it('stores an answer under the versions read before identity was asked: a change committed meanwhile retires it', async () => {
    const c = cache();
    const hint = { tenantId: 'ten_a' };
    // identity answers the old state while the change bumps the versions (before and after its commit)
    await c.principal(
      'k',
      async () => {
        asked++;
        await versions.bump('ten_a');
        return principal();
      },
      hint,
    );
    await c.principal('k', ask(principal({ permissions: [] })), hint);
    expect(asked).toBe(2);
  });

  it('never caches a refusal, and forgets the entry of a credential refused', async () => {
    const c = cache();
    const hint = { tenantId: 'ten_a' };
    const refuse = async (): Promise<identity.Principal> => {
      asked++;
      throw new DomainError('401001', { field: null, detail: 'The API key is not valid.', suggestion: 'Send a valid key.' });
    };
    await expect(c.principal('k', refuse, hint)).rejects.toThrow();
    await expect(c.principal('k', refuse, hint)).rejects.toThrow();
    expect(asked).toBe(2);
    expect(c.size).toBe(0);
  });

  it('keeps an entry no longer than its lifetime, nor past the credential’s own end', async () => {
    const c = cache({ ttlMs: 1000 });
    const hint = { tenantId: 'ten_a' };
    await c.principal('k', ask(principal()), hint);
    now += 999;
    await c.principal('k', ask(principal()), hint);
    expect(asked).toBe(1);
    now += 1;
    await c.principal('k', ask(principal()), hint);
    expect(asked).toBe(2);

    const ending = principal({ validUntil: new Date(now + 100).toISOString() });
    await c.principal('e', ask(ending), hint);
    now += 100;
    await c.principal('e', ask(ending), hint);
    expect(asked).toBe(4);
    await c.principal('t', ask(principal()), { tenantId: 'ten_a', endsAt: now + 10 });
    now += 10;
    await c.principal('t', ask(principal()), { tenantId: 'ten_a', endsAt: now });
    expect(asked).toBe(6);
  });

  it('holds at most maxEntries, the oldest going first; 0 entries turns it off', async () => {
    const c = cache({ maxEntries: 2 });
    const hint = { tenantId: 'ten_a' };
    for (const k of ['a', 'b', 'c']) await c.principal(k, ask(principal()), hint);
    expect(c.size).toBe(2);
    await c.principal('a', ask(principal()), hint);
    expect(asked).toBe(4);
    const off = cache({ maxEntries: 0 });
    await off.principal('a', ask(principal()), hint);
    await off.principal('a', ask(principal()), hint);
    expect(asked).toBe(6);
    expect(off.size).toBe(0);
  });

  it('never caches the answer of an identity that bumps another store', async () => {
    const c = cache();
    const hint = { tenantId: 'ten_a' };
    const elsewhere = principal({ versionsStore: 'redis:another-prefix' });
    await c.principal('k', ask(elsewhere), hint);
    await c.principal('k', ask(elsewhere), hint);
    expect(asked).toBe(2);
    expect(c.size).toBe(0);
  });

  it('asks identity when the versions cannot be read', async () => {
    const unreadable: AuthVersions = { ...versions, id: versions.id, read: async () => null };
    const c = new CredentialCache(unreadable, { maxEntries: 10, ttlMs: 60_000 });
    for (let i = 0; i < 3; i++) await c.principal('k', ask(principal()), { tenantId: 'ten_a' });
    expect(asked).toBe(3);
  });

  it('keys by a digest of the credential, its environment and method', () => {
    const key = CredentialCache.key('api_key', 'live', 'mp_live_secret');
    expect(key).not.toContain('secret');
    expect(key).not.toBe(CredentialCache.key('api_key', 'sandbox', 'mp_live_secret'));
    expect(key).not.toBe(CredentialCache.key('bearer', 'live', 'mp_live_secret'));
  });
});
