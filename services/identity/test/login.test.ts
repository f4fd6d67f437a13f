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

  it('signs in and returns the token object of spec 2.1, verifiable with the published JWKS', async () => {
    const res = await t.client.login({ ...ADMIN, environment: 'live' }, anon());
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
    const wrong = await rejection(t.client.login({ username: ADMIN.username, password: 'not it', environment: 'live' }, anon()));
    expect(wrong).toBeInstanceOf(DomainError);
    expect(wrong).toMatchObject({ code: '401008', field: 'password' });
    const unknown = await rejection(t.client.login({ username: 'nobody', password: 'not it', environment: 'live' }, anon()));
    expect(unknown).toMatchObject({ code: '401008', field: 'password', detail: wrong.detail });
  });

  it('refuses a disabled account with 401006, even with the right password', async () => {
    const id = await addUser('disabled.user', 'right password 1');
    await t.sql('UPDATE identity.users SET disabled = true WHERE id = $1', [id]);
    const err = await rejection(t.client.login({ username: 'disabled.user', password: 'right password 1', environment: 'live' }, anon()));
    expect(err).toMatchObject({ code: '401006', field: null });
  });

  it('locks the account after 5 failures for 30 minutes (401007, even with the right password), then lets it in and resets the count', async () => {
    const id = await addUser('site.surveyor', 'right password 2');
    const attempt = (password: string) => rejection(t.client.login({ username: 'site.surveyor', password, environment: 'live' }, anon()));
    for (let i = 1; i <= 4; i++) expect(await attempt(`wrong ${i}`)).toMatchObject({ code: '401008', field: 'password' });
    const before = Date.now();
    expect(await attempt('wrong 5')).toMatchObject({ code: '401007' });

    const [row] = await t.sql<{ locked_until: Date; failed_count: number }>('SELECT locked_until, failed_count FROM identity.users WHERE id = $1', [id]);
    const lockedUntil = new Date(row!.locked_until).getTime();
    expect(lockedUntil).toBeGreaterThanOrEqual(before + 1800_000 - 1000);
    expect(lockedUntil).toBeLessThanOrEqual(Date.now() + 1800_000 + 1000);
    expect(row!.failed_count).toBe(5);

    const locked = await attempt('right password 2');
    expect(locked).toMatchObject({ code: '401007', field: null });
    expect(locked.detail).toContain(new Date(lockedUntil).toISOString());
    expect(Number(locked.headers['Retry-After'])).toBeGreaterThan(1790);

    t.clock.advance(1801);
    const ok = await t.client.login({ username: 'site.surveyor', password: 'right password 2', environment: 'live' }, anon());
    expect(ok.scope).toBe('project:read');
    const [after] = await t.sql('SELECT failed_count, first_failed_at, locked_until FROM identity.users WHERE id = $1', [id]);
    expect(after).toEqual({ failed_count: 0, first_failed_at: null, locked_until: null });
  });

  it('binds the token to the environment it was issued in', async () => {
    const res = await t.client.login({ ...ADMIN, environment: 'sandbox' }, anon('sandbox'));
    expect(decodeJwt(res.accessToken).env).toBe('sandbox');
    expect(await rejection(t.client.login({ ...ADMIN, environment: 'staging' }, anon()))).toMatchObject({ code: '422103', field: 'environment' });
  });
});
