import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { DomainError } from '@mp/errors';
import { hashPassword } from '../src/passwords.js';
import { ALL_PERMISSIONS } from '../src/permissions.js';
import { ADMIN, anon, rejection, startTestIdentity, type TestIdentity } from './support.js';

describe('identity: login', () => {
  let t: TestIdentity;

  /** Adds a user of the administrator's tenant straight into the table. */
  const addUser = async (username: string, password: string, permissions = ['project:read']) => {
    const [admin] = await t.sql<{ tenant_id: string }>('SELECT tenant_id FROM identity.users LIMIT 1');
    const id = `usr_${username.padEnd(20, 'x').slice(0, 20)}`;
    await t.sql('INSERT INTO identity.users (id, tenant_id, username, name, password_hash, permissions) VALUES ($1, $2, $3, $3, $4, $5)', [
      id,
      admin!.tenant_id,
      username,
      await hashPassword(password),
      permissions,
    ]);
    return id;
  };

  beforeAll(async () => {
    t = await startTestIdentity();
  });
  afterAll(() => t?.stop());
  afterEach(() => t?.clock.reset());

  it('signs in and returns the token object, verifiable with the published JWKS', async () => {
    const res = await t.client.login({ ...ADMIN, environment: 'live', clientAddress: '' }, anon());
    expect(res).toMatchObject({ tokenType: 'Bearer', expiresIn: 7200 });
    expect(res.scope.split(' ').sort()).toEqual([...ALL_PERMISSIONS].sort());

    const jwks = await t.client.getJwks({}, anon());
    expect(jwks).toMatchObject({ issuer: 'monitoring-platform', audience: 'monitoring-platform-api' });
    const set = JSON.parse(jwks.jwksJson) as JSONWebKeySet;
    expect(set.keys).toHaveLength(1);
    expect(set.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(set.keys[0]).not.toHaveProperty('d');

    const { payload, protectedHeader } = await jwtVerify(res.accessToken, createLocalJWKSet(set), {
      algorithms: ['EdDSA'],
      issuer: jwks.issuer,
      audience: jwks.audience,
      typ: 'at+jwt',
    });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', kid: set.keys[0]!.kid, typ: 'at+jwt' });
    const [admin] = await t.sql<{ id: string; tenant_id: string }>('SELECT id, tenant_id FROM identity.users WHERE username = $1', [ADMIN.username]);
    expect(payload).toMatchObject({ sub: admin!.id, tid: admin!.tenant_id, env: 'live', scope: res.scope });
    expect(payload.exp! - payload.iat!).toBe(7200);
    expect(typeof payload.jti).toBe('string');

    expect(decodeProtectedHeader(res.refreshToken)).toEqual({ alg: 'EdDSA', kid: set.keys[0]!.kid, typ: 'rt+jwt' });
    const rt = decodeJwt(res.refreshToken);
    expect(rt).toMatchObject({ sub: admin!.id, tid: admin!.tenant_id, env: 'live' });
    expect(rt.exp! - rt.iat!).toBe(30 * 86_400);
    const rows = await t.sql('SELECT user_id, family_id, environment, used_at, revoked_at FROM identity.refresh_tokens WHERE jti = $1', [rt.jti]);
    expect(rows).toEqual([{ user_id: admin!.id, family_id: rt.fam, environment: 'live', used_at: null, revoked_at: null }]);
  });

  it('refuses a wrong password, and an unknown username alike, with 401008 on field password', async () => {
    const wrong = await rejection(t.client.login({ username: ADMIN.username, password: 'not it', environment: 'live', clientAddress: '' }, anon()));
    expect(wrong).toBeInstanceOf(DomainError);
    expect(wrong).toMatchObject({ code: '401008', field: 'password' });
    const unknown = await rejection(t.client.login({ username: 'nobody', password: 'not it', environment: 'live', clientAddress: '' }, anon()));
    expect(unknown).toMatchObject({ code: '401008', field: 'password', detail: wrong.detail });
  });

  it('refuses a disabled account with 401006, even with the right password', async () => {
    const id = await addUser('disabled.user', 'right password 1');
    await t.sql('UPDATE identity.users SET disabled = true WHERE id = $1', [id]);
    const err = await rejection(t.client.login({ username: 'disabled.user', password: 'right password 1', environment: 'live', clientAddress: '' }, anon()));
    expect(err).toMatchObject({ code: '401006', field: null });
  });

  describe('lockout per account and source (ADR 0019)', () => {
    const attacker = '198.51.100.7';
    const owner = '203.0.113.9';
    const attemptFrom = (clientAddress: string, username: string, password: string) =>
      t.client.login({ username, password, environment: 'live', clientAddress }, anon());
    const failuresOf = (username: string) =>
      t.sql<{ source: string; failed_count: number; locked_until: Date | null }>(
        "SELECT source, failed_count, locked_until FROM identity.login_failures WHERE username_key = encode(sha256(convert_to($1, 'UTF8')), 'hex') ORDER BY source",
        [username],
      );

    it('locks a username for the source of 5 failures only (401007 even with the right password); the owner elsewhere signs in', async () => {
      const id = await addUser('site.surveyor', 'right password 2');
      for (let i = 1; i <= 4; i++)
        expect(await rejection(attemptFrom(attacker, 'site.surveyor', `wrong ${i}`))).toMatchObject({ code: '401008', field: 'password' });
      const before = Date.now();
      expect(await rejection(attemptFrom(attacker, 'site.surveyor', 'wrong 5'))).toMatchObject({ code: '401007', field: null });

      const [row] = await failuresOf('site.surveyor');
      expect(row).toMatchObject({ source: attacker, failed_count: 5 });
      const lockedUntil = new Date(row!.locked_until!).getTime();
      expect(lockedUntil).toBeGreaterThanOrEqual(before + 1800_000 - 1000);
      expect(lockedUntil).toBeLessThanOrEqual(Date.now() + 1800_000 + 1000);

      const locked = await rejection(attemptFrom(attacker, 'site.surveyor', 'right password 2'));
      expect(locked).toMatchObject({ code: '401007', field: null });
      expect(locked.detail).toContain(new Date(lockedUntil).toISOString());
      expect(Number(locked.headers['Retry-After'])).toBeGreaterThan(1790);

      // the rightful owner, from another address, is not locked out; administrators see the lock
      expect((await attemptFrom(owner, 'site.surveyor', 'right password 2')).scope).toBe('project:read');
      const [user] = await t.sql<{ locked_until: Date }>('SELECT locked_until FROM identity.users WHERE id = $1', [id]);
      expect(new Date(user!.locked_until).getTime()).toBe(lockedUntil);
      // ... and the owner's success does not lift the attacker's lock
      expect(await rejection(attemptFrom(attacker, 'site.surveyor', 'right password 2'))).toMatchObject({ code: '401007' });

      t.clock.advance(1801);
      expect((await attemptFrom(attacker, 'site.surveyor', 'right password 2')).scope).toBe('project:read');
      expect(await failuresOf('site.surveyor')).toEqual([]);
    });

    it('counts an unknown username exactly like a known one: same codes, details and Retry-After', async () => {
      await addUser('known.user', 'right password 3');
      const answers = async (username: string) => {
        const out = [];
        for (let i = 1; i <= 6; i++) {
          const err = await rejection(attemptFrom(attacker, username, `wrong ${i}`));
          out.push({ code: err.code, field: err.field, detail: err.detail.replace(/\S+Z\b/g, '<time>'), retry: err.headers['Retry-After'] !== undefined });
        }
        return out;
      };
      const known = await answers('known.user');
      const unknown = await answers('nobody.here');
      expect(unknown).toEqual(known);
      expect(known.map((a) => a.code)).toEqual(['401008', '401008', '401008', '401008', '401007', '401007']);
      expect(await failuresOf('nobody.here')).toEqual([expect.objectContaining({ source: attacker, failed_count: 5 })]);
    });

    it('counts an IPv6 client by its /64 and an IPv4-mapped address as the IPv4 address', async () => {
      await addUser('v6.user', 'right password 4');
      for (let i = 0; i < 5; i++) await rejection(attemptFrom(`2001:db8:1:2::${i + 1}`, 'v6.user', 'wrong password'));
      expect(await rejection(attemptFrom('2001:db8:1:2:ffff::9', 'v6.user', 'right password 4'))).toMatchObject({ code: '401007' });
      expect((await attemptFrom('2001:db8:1:3::1', 'v6.user', 'right password 4')).accessToken).toBeTruthy();

      for (let i = 0; i < 5; i++) await rejection(attemptFrom('::ffff:192.0.2.44', 'v6.user', 'wrong password'));
      expect(await rejection(attemptFrom('192.0.2.44', 'v6.user', 'right password 4'))).toMatchObject({ code: '401007' });
      expect((await failuresOf('v6.user')).map((r) => r.source)).toEqual(['192.0.2.44', '2001:db8:1:2::/64']);
    });

    it("an administrator's unlock lets every source in again", async () => {
      const id = await addUser('unlockme', 'right password 5');
      for (let i = 0; i < 5; i++) await rejection(attemptFrom(attacker, 'unlockme', 'wrong password'));
      const admin = await t.adminContext();
      const unlocked = await t.client.updateUser({ id, unlock: true, clear: [] }, admin);
      expect(unlocked.lockedUntil).toBeUndefined();
      expect(await failuresOf('unlockme')).toEqual([]);
      expect((await attemptFrom(attacker, 'unlockme', 'right password 5')).accessToken).toBeTruthy();
    });
  });

  it('binds the token to the environment it was issued in', async () => {
    const res = await t.client.login({ ...ADMIN, environment: 'sandbox', clientAddress: '' }, anon('sandbox'));
    expect(decodeJwt(res.accessToken).env).toBe('sandbox');
    expect(await rejection(t.client.login({ ...ADMIN, environment: 'staging', clientAddress: '' }, anon()))).toMatchObject({
      code: '422103',
      field: 'environment',
    });
  });
});
