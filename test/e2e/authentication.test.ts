import { createLocalJWKSet, generateKeyPair, jwtVerify, SignJWT, decodeProtectedHeader, decodeJwt, type JSONWebKeySet } from 'jose';
import { queryTestDatabase } from '@mp/testing';
import { ALL_PERMISSIONS, expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { call, identityClient, RAISED_LIMITS, signWithPlatformKey, startSecondGateway, systemContext, testSecretsKey } from '../support/identity.js';

describe('authentication at the gateway', () => {
  let t: TestPlatform;
  const secretsKey = testSecretsKey();
  let id: ReturnType<typeof identityClient>;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const signIn = async (username = t.admin.username, password = t.admin.password, sandbox = false) => {
    const res = await t.api('POST', '/auth/login', { body: { username, password, grant_type: 'password' }, sandbox });
    if (res.status !== 200) throw new Error(`login failed: ${res.text}`);
    return res.body.data as { access_token: string; refresh_token: string; scope: string };
  };

  beforeAll(async () => {
    t = await startTestPlatform({ MP_SECRETS_KEY: secretsKey });
    id = identityClient(t);
  });
  afterAll(async () => {
    id?.close();
    await t?.stop();
  });

  it('logs in with the token object', async () => {
    const res = await t.api('POST', '/auth/login', { body: { username: t.admin.username, password: t.admin.password, grant_type: 'password' } });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    expect(d.token_type).toBe('Bearer');
    expect(d.expires_in).toBe(7200);
    expect(d.scope.split(' ').sort()).toEqual([...ALL_PERMISSIONS].sort());
    expect(decodeProtectedHeader(d.access_token)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    const claims = decodeJwt(d.access_token);
    expect(claims.exp! - claims.iat!).toBe(7200);
    expect(decodeProtectedHeader(d.refresh_token).alg).toBe('EdDSA');
  });

  it('refuses a wrong password with 401008', async () => {
    const res = await t.api('POST', '/auth/login', { body: { username: t.admin.username, password: 'wrong', grant_type: 'password' } });
    expectError(res, 401008, 'password');
  });

  it('refuses a login without grant_type password (422101) or with another grant (422103)', async () => {
    expectError(await t.api('POST', '/auth/login', { body: { username: 'a', password: 'b' } }), 422101, 'grant_type');
    expectError(await t.api('POST', '/auth/login', { body: { username: 'a', password: 'b', grant_type: 'client_credentials' } }), 422103, 'grant_type');
  });

  it('refreshes: POST /auth/refresh returns a new access token', async () => {
    const login = await t.api('POST', '/auth/login', { body: { username: t.admin.username, password: t.admin.password, grant_type: 'password' } });
    const res = await t.api('POST', '/auth/refresh', { body: { refresh_token: login.body.data.refresh_token } });
    expect(res.status).toBe(200);
    expect(typeof res.body.data.access_token).toBe('string');
    const ok = await t.api('GET', '/projects', { headers: { authorization: `Bearer ${res.body.data.access_token}` } });
    expect(ok.status).toBe(200);
  });

  it('accepts a bearer token and an API key on GET /projects', async () => {
    const token = await t.login();
    expect((await t.api('GET', '/projects', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const key = await t.apiKey(['project:read']);
    expect(key).toMatch(/^mp_live_[A-Za-z0-9]{32}$/);
    expect((await t.api('GET', '/projects', { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('refuses a request without credentials or with an unknown key with 401001', async () => {
    expectError(await t.api('GET', '/projects'), 401001, 'X-API-Key');
    expectError(await t.api('GET', '/projects', { headers: { 'x-api-key': 'mp_live_' + 'A'.repeat(32) } }), 401001);
  });

  it('refuses a revoked key at once with 401001', async () => {
    const token = await t.login();
    const created = await t.api('POST', '/api-keys', {
      headers: { authorization: `Bearer ${token}` },
      body: { name: 'to revoke', permissions: ['project:read'] },
    });
    const { id, key } = created.body.data;
    expect((await t.api('GET', '/projects', { headers: { 'x-api-key': key } })).status).toBe(200);
    const revoked = await t.api('DELETE', `/api-keys/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).not.toBeNull();
    expectError(await t.api('GET', '/projects', { headers: { 'x-api-key': key } }), 401001);
  });

  it('stores only a hash of an API key and shows the value only once', async () => {
    const token = await t.login();
    const created = await t.api('POST', '/api-keys', {
      headers: { authorization: `Bearer ${token}` },
      body: { name: 'hash check', permissions: ['data:read'] },
    });
    expect(created.body.data).toMatchObject({ name: 'hash check', permissions: ['data:read'], environment: 'live' });
    const { id, key } = created.body.data;
    const rows = await queryTestDatabase<Record<string, unknown>>(t.db.url, 'SELECT * FROM identity.api_keys WHERE id = $1', [id]);
    expect(JSON.stringify(rows)).not.toContain(key);
    const fetched = await t.api('GET', `/api-keys/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(fetched.body.data).not.toHaveProperty('key');
    const list = await t.api('GET', '/api-keys', { headers: { authorization: `Bearer ${token}` } });
    expect(JSON.stringify(list.body)).not.toContain(key);
  });

  it('refuses a tampered, unsigned or foreign token with 401003', async () => {
    const token = await t.login();
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, scope: 'system:admin' })).toString('base64url')}.${s}`;
    expectError(await t.api('GET', '/projects', { headers: { authorization: `Bearer ${tampered}` } }), 401003, 'Authorization');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${p}.`;
    expectError(await t.api('GET', '/projects', { headers: { authorization: `Bearer ${none}` } }), 401003, 'Authorization');
    expectError(await t.api('GET', '/projects', { headers: { authorization: 'Bearer not-a-jwt' } }), 401003, 'Authorization');
    expectError(await t.api('GET', '/projects', { headers: { authorization: `Basic abc` } }), 401003, 'Authorization');
    const { privateKey } = await generateKeyPair('EdDSA');
    const foreign = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: decodeProtectedHeader(token).kid! })
      .sign(privateKey);
    expectError(await t.api('GET', '/projects', { headers: { authorization: `Bearer ${foreign}` } }), 401003, 'Authorization');
  });

  it('refuses a live token at the sandbox base URL with 401003', async () => {
    const token = await t.login();
    expectError(await t.api('GET', '/projects', { headers: { authorization: `Bearer ${token}` }, sandbox: true }), 401003, 'Authorization');
  });

  it('refuses an identity without the needed permission with 401004 and creates nothing', async () => {
    const readOnly = await t.apiKey(['project:read']);
    const res = await t.api('POST', '/projects', { headers: { 'x-api-key': readOnly }, body: { name: 'Slope A', number: 'SL-A' } });
    expectError(res, 401004);
    expect(res.body.data.detail).toMatch(/project:write/);
    const rows = await queryTestDatabase(t.db.url, 'SELECT id FROM projects.projects');
    expect(rows).toHaveLength(0);
  });

  describe('access tokens (refresh and repeat once)', () => {
    it('refuses a JWT with alg none, a wrong aud or iss, an unknown kid, a tampered signature, HS256 or a refresh token with 401003', async () => {
      const token = (await signIn()).access_token;
      const claims = decodeJwt(token);
      const [h, p, s] = token.split('.') as [string, string, string];
      const refuse = async (bad: string) => expectError(await t.api('GET', '/projects', { headers: bearer(bad) }), 401003, 'Authorization');
      await refuse(`${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: decodeProtectedHeader(token).kid })).toString('base64url')}.${p}.`);
      await refuse(await signWithPlatformKey(t, secretsKey, { ...claims, aud: 'another-api' }));
      await refuse(await signWithPlatformKey(t, secretsKey, { ...claims, iss: 'someone-else' }));
      await refuse(await signWithPlatformKey(t, secretsKey, claims, { typ: 'JWT' }));
      const { privateKey } = await generateKeyPair('EdDSA');
      await refuse(
        await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'unknown-kid-0000000000000000000000000000000' }).sign(privateKey),
      );
      const flipped = Buffer.from(s, 'base64url');
      flipped[0] = flipped[0]! ^ 0xff;
      await refuse(`${h}.${p}.${flipped.toString('base64url')}`);
      // algorithm confusion: the public key used as an HMAC secret
      const jwks = (await t.api('GET', '/auth/jwks')).body.data.keys as { x: string }[];
      await refuse(await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(new TextEncoder().encode(jwks[0]!.x)));
      // a refresh token is not an access token
      await refuse((await signIn()).refresh_token);
      // the genuine one still works
      expect((await t.api('GET', '/projects', { headers: bearer(token) })).status).toBe(200);
    });

    it('answers an expired token with 401002, so the client refreshes and repeats the request once', async () => {
      const session = await signIn();
      const claims = decodeJwt(session.access_token);
      const now = Math.floor(Date.now() / 1000);
      const expired = await signWithPlatformKey(t, secretsKey, { ...claims, iat: now - 7300, exp: now - 100 });
      const first = await t.api('GET', '/projects', { headers: bearer(expired) });
      expectError(first, 401002, 'Authorization');
      expect(first.body.data.suggestion).toMatch(/refresh/i);
      const refreshed = await t.api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } });
      expect(refreshed.status).toBe(200);
      expect((await t.api('GET', '/projects', { headers: bearer(refreshed.body.data.access_token) })).status).toBe(200);
    });

    it('publishes the verifying keys at GET /auth/jwks (no private parts) without authentication', async () => {
      const res = await t.api('GET', '/auth/jwks');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      const { keys, issuer, audience } = res.body.data as JSONWebKeySet & { issuer: string; audience: string };
      expect(keys.length).toBeGreaterThanOrEqual(1);
      for (const k of keys) {
        expect(k).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
        expect(k).not.toHaveProperty('d');
      }
      const token = (await signIn()).access_token;
      const { payload } = await jwtVerify(token, createLocalJWKSet({ keys }), { issuer, audience, typ: 'at+jwt', algorithms: ['EdDSA'] });
      expect(payload.sub).toMatch(/^usr_/);
    });

    it('rotates the signing key without logging anyone out: old tokens keep working, new ones verify at once on every replica', async () => {
      const second = await startSecondGateway(t, {});
      try {
        const before = await signIn();
        const oldKid = decodeProtectedHeader(before.access_token).kid;
        // both replicas have seen the old key
        expect((await call(second.base, 'GET', '/projects', { headers: bearer(before.access_token) })).status).toBe(200);
        const rotation = await id.rotateSigningKey({}, systemContext());
        expect(rotation.retiredKids).toContain(oldKid);
        const after = await signIn();
        expect(decodeProtectedHeader(after.access_token).kid).toBe(rotation.kid);
        for (const base of [t.base, second.base]) {
          expect((await call(base, 'GET', '/projects', { headers: bearer(after.access_token) })).status).toBe(200);
          expect((await call(base, 'GET', '/projects', { headers: bearer(before.access_token) })).status).toBe(200);
        }
        expect((await t.api('GET', '/auth/jwks')).body.data.keys.map((k: { kid: string }) => k.kid)).toEqual(expect.arrayContaining([oldKid, rotation.kid]));
        // the old refresh token still refreshes
        expect((await t.api('POST', '/auth/refresh', { body: { refresh_token: before.refresh_token } })).status).toBe(200);
      } finally {
        await second.gateway.stop();
      }
    });
  });

  describe('sessions', () => {
    it('POST /auth/logout revokes the refresh token family and ends the access tokens of the session at once', async () => {
      const session = await signIn();
      const rotated = (await t.api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } })).body.data;
      const out = await t.api('POST', '/auth/logout', { body: { refresh_token: rotated.refresh_token } });
      expect(out.status).toBe(200);
      expect(out.body.data).toEqual({ session_id: decodeJwt(session.access_token).sid, revoked_at: expect.any(String) });
      expectError(await t.api('POST', '/auth/refresh', { body: { refresh_token: rotated.refresh_token } }), 401003, 'refresh_token');
      for (const access of [session.access_token, rotated.access_token]) {
        expectError(await t.api('GET', '/projects', { headers: bearer(access) }), 401003, 'Authorization');
      }
      const rows = await queryTestDatabase<{ revoked_at: string | null }>(t.db.url, 'SELECT revoked_at FROM identity.refresh_tokens WHERE family_id = $1', [
        out.body.data.session_id,
      ]);
      expect(rows).toHaveLength(2);
      expect(rows.every((r) => r.revoked_at !== null)).toBe(true);
      // another sign-in of the same user is untouched
      expect((await t.api('GET', '/projects', { headers: bearer((await signIn()).access_token) })).status).toBe(200);
    });

    it('signs out with the access token alone, and refuses a logout without any token (422101) or with a bad one (401003)', async () => {
      const session = await signIn();
      expect((await t.api('POST', '/auth/logout', { headers: bearer(session.access_token) })).status).toBe(200);
      expectError(await t.api('GET', '/projects', { headers: bearer(session.access_token) }), 401003, 'Authorization');
      expectError(await t.api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } }), 401003, 'refresh_token');
      expectError(await t.api('POST', '/auth/logout', { body: {} }), 422101, 'refresh_token');
      expectError(await t.api('POST', '/auth/logout', { body: { refresh_token: 'garbage' } }), 401003, 'refresh_token');
    });

    it('locks an account after 5 failed logins for 30 minutes (401007 with Retry-After), even for the right password', async () => {
      const admin = bearer((await signIn()).access_token);
      expect((await t.api('POST', '/users', { headers: admin, body: { username: 'lock.me', password: 'the right password', name: 'Lock Me' } })).status).toBe(
        200,
      );
      for (let i = 0; i < 4; i++)
        expectError(await t.api('POST', '/auth/login', { body: { username: 'lock.me', password: `wrong ${i}`, grant_type: 'password' } }), 401008, 'password');
      const locked = await t.api('POST', '/auth/login', { body: { username: 'lock.me', password: 'wrong 5', grant_type: 'password' } });
      expectError(locked, 401007);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(1790);
      expectError(await t.api('POST', '/auth/login', { body: { username: 'lock.me', password: 'the right password', grant_type: 'password' } }), 401007);
      // Seven scrypt hashes at 128 MiB each (services/identity/src/passwords.ts): about 25 s at a
      // load average of 12, past the suite's 60 s on a CI machine busy with other test files.
    }, 180_000);

    it('refuses a disabled account: next login 401006, refresh 401006, and its access tokens from the next request on', async () => {
      const admin = bearer((await signIn()).access_token);
      const user = (
        await t.api('POST', '/users', {
          headers: admin,
          body: { username: 'soon.disabled', password: 'soon disabled password', name: 'Soon', permissions: ['project:read'] },
        })
      ).body.data;
      const session = await signIn('soon.disabled', 'soon disabled password');
      expect((await t.api('GET', '/projects', { headers: bearer(session.access_token) })).status).toBe(200);
      expect((await t.api('PATCH', `/users/${user.id}`, { headers: admin, body: { disabled: true } })).body.data.disabled).toBe(true);
      expectError(await t.api('GET', '/projects', { headers: bearer(session.access_token) }), 401006);
      expectError(await t.api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } }), 401006);
      expectError(
        await t.api('POST', '/auth/login', { body: { username: 'soon.disabled', password: 'soon disabled password', grant_type: 'password' } }),
        401006,
      );
    });
  });

  describe('API keys', () => {
    const admin = async () => bearer((await signIn()).access_token);

    it('rolls a key: the new value works at once, the old one for the grace period (24 h by default), both shown by the key', async () => {
      const h = await admin();
      const created = (await t.api('POST', '/api-keys', { headers: h, body: { name: 'logger', permissions: ['project:read'] } })).body.data;
      const rolled = await t.api('POST', `/api-keys/${created.id}/roll`, { headers: h });
      expect(rolled.status).toBe(200);
      expect(rolled.body.data).toMatchObject({ id: created.id, name: 'logger', permissions: ['project:read'], environment: 'live' });
      expect(rolled.body.data.key).toMatch(/^mp_live_[A-Za-z0-9]{32}$/);
      expect(rolled.body.data.key).not.toBe(created.key);
      expect(Date.parse(rolled.body.data.previous_value_expires_at) - Date.parse(rolled.body.data.rolled_at)).toBe(86_400_000);
      for (const key of [created.key, rolled.body.data.key]) expect((await t.api('GET', '/projects', { headers: { 'x-api-key': key } })).status).toBe(200);
      const shown = (await t.api('GET', `/api-keys/${created.id}`, { headers: h })).body.data;
      expect(shown).toMatchObject({
        prefix: rolled.body.data.key.slice(0, 12),
        rolled_at: rolled.body.data.rolled_at,
        previous_value_expires_at: rolled.body.data.previous_value_expires_at,
      });
      expect(shown).not.toHaveProperty('key');
    });

    it('rolls with grace_period_seconds 0 to stop the old value at once, and validates the grace period (400003)', async () => {
      const h = await admin();
      const created = (await t.api('POST', '/api-keys', { headers: h, body: { name: 'leaked', permissions: ['project:read'] } })).body.data;
      expectError(await t.api('POST', `/api-keys/${created.id}/roll`, { headers: h, body: { grace_period_seconds: 604_801 } }), 400003, 'grace_period_seconds');
      expectError(await t.api('POST', `/api-keys/${created.id}/roll`, { headers: h, body: { grace_period_seconds: 'soon' } }), 422102, 'grace_period_seconds');
      const rolled = (await t.api('POST', `/api-keys/${created.id}/roll`, { headers: h, body: { grace_period_seconds: 0 } })).body.data;
      expect(rolled.previous_value_expires_at).toBeNull();
      expectError(await t.api('GET', '/projects', { headers: { 'x-api-key': created.key } }), 401001);
      expect((await t.api('GET', '/projects', { headers: { 'x-api-key': rolled.key } })).status).toBe(200);
      expectError(await t.api('POST', '/api-keys/key_aaaaaaaaaaaaaaaaaaaa/roll', { headers: h }), 404010, 'key_id');
    });

    it('takes an optional expiry (then 401001) and records last_used_at', async () => {
      const h = await admin();
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const created = (await t.api('POST', '/api-keys', { headers: h, body: { name: 'temporary', permissions: ['project:read'], expires_at: expiresAt } })).body
        .data;
      expect(created.expires_at).toBe(expiresAt);
      expect(created.last_used_at).toBeNull();
      await t.api('GET', '/projects', { headers: { 'x-api-key': created.key } });
      expect((await t.api('GET', `/api-keys/${created.id}`, { headers: h })).body.data.last_used_at).not.toBeNull();
      await queryTestDatabase(t.db.url, "UPDATE identity.api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [created.id]);
      expectError(await t.api('GET', '/projects', { headers: { 'x-api-key': created.key } }), 401001);
      expectError(
        await t.api('POST', '/api-keys', { headers: h, body: { name: 'past', permissions: ['project:read'], expires_at: '2020-01-01T00:00:00Z' } }),
        422103,
        'expires_at',
      );
    });

    it('revokes a key at once on every gateway replica', async () => {
      const second = await startSecondGateway(t, RAISED_LIMITS);
      try {
        const h = await admin();
        const created = (await t.api('POST', '/api-keys', { headers: h, body: { name: 'replicated', permissions: ['project:read'] } })).body.data;
        for (const base of [t.base, second.base]) expect((await call(base, 'GET', '/projects', { headers: { 'x-api-key': created.key } })).status).toBe(200);
        expect((await call(second.base, 'DELETE', `/api-keys/${created.id}`, { headers: h })).status).toBe(200);
        for (const base of [t.base, second.base]) expectError(await call(base, 'GET', '/projects', { headers: { 'x-api-key': created.key } }), 401001);
      } finally {
        await second.gateway.stop();
      }
    });

    it('lets a caller grant only permissions it holds (401004 on the permission) and needs system:admin to manage keys', async () => {
      const narrowAdmin = await t.apiKey(['system:admin', 'project:read']);
      expectError(
        await t.api('POST', '/api-keys', { headers: { 'x-api-key': narrowAdmin }, body: { name: 'wider', permissions: ['project:read', 'data:write'] } }),
        401004,
        'permissions[1]',
      );
      const reader = await t.apiKey(['project:read']);
      expectError(await t.api('GET', '/api-keys', { headers: { 'x-api-key': reader } }), 401004);
      expect(await queryTestDatabase(t.db.url, "SELECT id FROM identity.api_keys WHERE name = 'wider'")).toEqual([]);
    });
  });

  describe('who am I', () => {
    it('GET /me describes a user (profile, tenant, plan) and an API key', async () => {
      const me = await t.api('GET', '/me', { headers: bearer((await signIn()).access_token) });
      expect(me.status).toBe(200);
      expect(me.body.data).toMatchObject({
        principal_type: 'user',
        name: 'Administrator',
        tenant: { name: 'Default tenant' },
        environment: 'live',
        plan: { name: 'standard', features: ['sandbox', 'oauth', 'reports', 'data_batches'], limits: { api_requests_per_minute: null } },
        user: { username: t.admin.username, disabled: false },
        client_id: null,
      });
      expect(me.body.data.permissions.sort()).toEqual([...ALL_PERMISSIONS].sort());
      const key = await t.apiKey(['task:read']);
      const keyMe = await t.api('GET', '/me', { headers: { 'x-api-key': key } });
      expect(keyMe.body.data).toMatchObject({ principal_type: 'api_key', permissions: ['task:read'], user: null });
      expect(keyMe.body.data.id).toMatch(/^key_/);
      expectError(await t.api('GET', '/me'), 401001, 'X-API-Key');
    });
  });
});
