import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { ADMIN, anon, rejection, startTestIdentity, system, type TestIdentity } from './support.js';

describe('identity: sessions, logout, session checks and signing-key rotation', () => {
  let t: TestIdentity;
  const login = (username = ADMIN.username, password = ADMIN.password, environment: 'live' | 'sandbox' = 'live') =>
    t.client.login({ username, password, environment, clientAddress: '' }, anon(environment));
  /** What the gateway sends after verifying an access token's signature. */
  const check = (accessToken: string, environment: 'live' | 'sandbox' = 'live') => {
    const c = decodeJwt(accessToken) as { sid: string; sub: string; tid: string; scope: string; client_id?: string };
    return t.client.checkSession(
      { sessionId: c.sid, userId: c.sub, tenantId: c.tid, environment, scope: c.scope.split(' '), ...(c.client_id ? { clientId: c.client_id } : {}) },
      anon(environment),
    );
  };
  const verifyWithJwks = async (token: string) => {
    const jwks = await t.client.getJwks({}, anon());
    return jwtVerify(token, createLocalJWKSet(JSON.parse(jwks.jwksJson) as JSONWebKeySet), {
      algorithms: ['EdDSA'],
      issuer: jwks.issuer,
      audience: jwks.audience,
      typ: 'at+jwt',
    });
  };

  beforeAll(async () => {
    t = await startTestIdentity();
  });
  afterAll(() => t?.stop());
  afterEach(() => t?.clock.reset());

  it('opens one session per sign-in: the tokens carry its id, the session row records it', async () => {
    const tokens = await login();
    const access = decodeJwt(tokens.accessToken);
    const refresh = decodeJwt(tokens.refreshToken);
    expect(typeof access.sid).toBe('string');
    expect(refresh.fam).toBe(access.sid);
    const rows = await t.sql('SELECT user_id, environment, client_id, scope, revoked_at FROM identity.sessions WHERE id = $1', [access.sid]);
    expect(rows).toEqual([{ user_id: access.sub, environment: 'live', client_id: null, scope: null, revoked_at: null }]);
  });

  it('answers a session check with the principal, its plan and the permissions in force', async () => {
    const tokens = await login();
    const claims = decodeJwt(tokens.accessToken);
    const principal = await check(tokens.accessToken);
    expect(principal).toMatchObject({
      tenantId: claims.tid,
      environment: 'live',
      principalId: claims.sub,
      principalType: 'user',
      name: 'Administrator',
      sessionId: claims.sid,
    });
    expect(principal.permissions.sort()).toEqual((claims.scope as string).split(' ').sort());
    expect(principal.plan).toMatchObject({ name: 'standard', features: ['sandbox', 'oauth', 'reports', 'data_batches'] });
    // a forged combination of claims is not a session
    expect(
      await rejection(
        t.client.checkSession(
          { sessionId: claims.sid as string, userId: 'usr_someoneelse000000000', tenantId: claims.tid as string, environment: 'live', scope: [] },
          anon(),
        ),
      ),
    ).toMatchObject({
      code: '401003',
      field: 'Authorization',
    });
    expect(await rejection(check(tokens.accessToken, 'sandbox'))).toMatchObject({ code: '401003' });
  });

  it('logs out with the refresh token: the session ends, its refresh token and its access tokens are refused', async () => {
    const tokens = await login();
    await check(tokens.accessToken);
    const out = await t.client.logout({ environment: 'live', refreshToken: tokens.refreshToken }, anon());
    expect(out.sessionId).toBe(decodeJwt(tokens.accessToken).sid);
    expect(await rejection(check(tokens.accessToken))).toMatchObject({ code: '401003', field: 'Authorization' });
    expect(await rejection(t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'live' }, anon()))).toMatchObject({
      code: '401003',
      field: 'refresh_token',
    });
    const [row] = await t.sql<{ revoked_at: string; revoke_reason: string }>('SELECT revoked_at, revoke_reason FROM identity.sessions WHERE id = $1', [
      out.sessionId,
    ]);
    expect(row!.revoke_reason).toBe('logout');
    expect(new Date(row!.revoked_at).toISOString()).toBe(out.revokedAt);
    // signing out twice answers the first time
    expect((await t.client.logout({ environment: 'live', refreshToken: tokens.refreshToken }, anon())).revokedAt).toBe(out.revokedAt);
    // another session of the same user is untouched
    const other = await login();
    await check(other.accessToken);
  });

  it('logs out with the session of a verified access token, and refuses a foreign or malformed token', async () => {
    const tokens = await login();
    const c = decodeJwt(tokens.accessToken);
    await t.client.logout({ environment: 'live', sessionId: c.sid as string, userId: c.sub! }, anon());
    expect(await rejection(check(tokens.accessToken))).toMatchObject({ code: '401003' });
    expect(await rejection(t.client.logout({ environment: 'live', refreshToken: 'garbage' }, anon()))).toMatchObject({
      code: '401003',
      field: 'refresh_token',
    });
    expect(await rejection(t.client.logout({ environment: 'live', sessionId: 'nope', userId: c.sub! }, anon()))).toMatchObject({ code: '401003' });
    expect(await rejection(t.client.logout({ environment: 'live' }, anon()))).toMatchObject({ code: '422101', field: 'refresh_token' });
  });

  it('accepts an expired refresh token for logout', async () => {
    const tokens = await login();
    t.clock.advance(31 * 86_400);
    const out = await t.client.logout({ environment: 'live', refreshToken: tokens.refreshToken }, anon());
    expect(out.sessionId).toBe(decodeJwt(tokens.refreshToken).fam);
  });

  it('refuses the sessions of a disabled user with 401006, and narrows the permissions to what the user still holds', async () => {
    const ctx = await t.adminContext();
    const user = await t.client.createUser(
      { username: 'field.tech', password: 'field tech password', name: 'Field Tech', permissions: ['project:read', 'data:write'], disabled: false },
      ctx,
    );
    const tokens = await login('field.tech', 'field tech password');
    expect((await check(tokens.accessToken)).permissions).toEqual(['project:read', 'data:write']);
    await t.client.updateUser({ id: user.id, permissions: { values: ['project:read'] }, clear: [], unlock: false }, ctx);
    expect((await check(tokens.accessToken)).permissions).toEqual(['project:read']);
    await t.client.updateUser({ id: user.id, disabled: true, clear: [], unlock: false }, ctx);
    expect(await rejection(check(tokens.accessToken))).toMatchObject({ code: '401006', field: null });
    expect(await rejection(t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'live' }, anon()))).toMatchObject({ code: '401006' });
    const [session] = await t.sql<{ revoke_reason: string }>('SELECT revoke_reason FROM identity.sessions WHERE id = $1', [decodeJwt(tokens.accessToken).sid]);
    expect(session!.revoke_reason).toBe('user_disabled');
    expect(await rejection(login('field.tech', 'field tech password'))).toMatchObject({ code: '401006' });
    // disabling ended the session: re-enabling does not bring old tokens back
    await t.client.updateUser({ id: user.id, disabled: false, clear: [], unlock: false }, ctx);
    expect(await rejection(check(tokens.accessToken))).toMatchObject({ code: '401003' });
    // a session that is still open of a user disabled by hand (e.g. in the database) gets 401006
    const fresh = await login('field.tech', 'field tech password');
    await t.sql('UPDATE identity.users SET disabled = true WHERE id = $1', [user.id]);
    expect(await rejection(check(fresh.accessToken))).toMatchObject({ code: '401006', field: null });
    await t.client.deleteUser({ id: user.id }, ctx);
    expect(await rejection(check(fresh.accessToken))).toMatchObject({ code: '401003' });
  });

  it('refuses the sandbox (sign-in, refresh, session checks, keys) to a tenant whose plan lacks it, with 403004', async () => {
    const tokens = await login(ADMIN.username, ADMIN.password, 'sandbox');
    const key = await t.client.createApiKey({ name: 'sandbox key', permissions: ['project:read'] }, await t.adminContext('sandbox'));
    await t.client.upsertPlan(
      { name: 'live-only', features: ['oauth'], limits: { apiPerMinute: 30, dataRecordsPerMinute: 0, reportsPerHour: 0, concurrentRequests: 0 } },
      system(),
    );
    const [admin] = await t.sql<{ tenant_id: string }>('SELECT tenant_id FROM identity.users WHERE username = $1', [ADMIN.username]);
    await t.client.setTenantPlan({ tenantId: admin!.tenant_id, plan: 'live-only' }, system());
    try {
      expect(await rejection(login(ADMIN.username, ADMIN.password, 'sandbox'))).toMatchObject({ code: '403004', field: null });
      expect(await rejection(check(tokens.accessToken, 'sandbox'))).toMatchObject({ code: '403004' });
      expect(await rejection(t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'sandbox' }, anon('sandbox')))).toMatchObject({
        code: '403004',
      });
      expect(await rejection(t.client.authenticateApiKey({ key: key.key, environment: 'sandbox' }, anon('sandbox')))).toMatchObject({ code: '403004' });
      // live goes on, with the plan's limits in the principal
      const live = await login();
      expect((await check(live.accessToken)).plan).toMatchObject({ name: 'live-only', features: ['oauth'], limits: { apiPerMinute: 30 } });
    } finally {
      await t.client.setTenantPlan({ tenantId: admin!.tenant_id, plan: 'standard' }, system());
    }
    // the refused refresh did not use the token up
    expect((await t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'sandbox' }, anon('sandbox'))).accessToken).toBeTruthy();
  });

  describe('signing-key rotation', () => {
    it('signs with the new key at once while tokens of the old key keep verifying and refreshing: nobody is logged out', async () => {
      const before = await login();
      const oldKid = decodeProtectedHeader(before.accessToken).kid!;
      // Only the operator credential may rotate: the gateway's is refused (UNAUTHENTICATED → 502001).
      expect(await rejection(t.client.rotateSigningKey({}, await t.adminContext()))).toMatchObject({ code: '502001' });
      const rotation = await t.client.rotateSigningKey({}, system());
      expect(rotation.retiredKids).toEqual([oldKid]);
      expect(rotation.kid).not.toBe(oldKid);

      const jwks = JSON.parse((await t.client.getJwks({}, anon())).jwksJson) as JSONWebKeySet;
      expect(jwks.keys.map((k) => k.kid)).toEqual([rotation.kid, oldKid]);
      await verifyWithJwks(before.accessToken);
      await check(before.accessToken);

      const after = await login();
      expect(decodeProtectedHeader(after.accessToken).kid).toBe(rotation.kid);
      await verifyWithJwks(after.accessToken);
      // the old refresh token (signed with the retired key) still refreshes, into new-key tokens
      const refreshed = await t.client.refresh({ refreshToken: before.refreshToken, environment: 'live' }, anon());
      expect(decodeProtectedHeader(refreshed.accessToken).kid).toBe(rotation.kid);
    });

    it('stops publishing a retired key once no access token it signed can still be valid', async () => {
      const rotation = await t.client.rotateSigningKey({}, system());
      const kids = () => t.client.getJwks({}, anon()).then((r) => (JSON.parse(r.jwksJson) as JSONWebKeySet).keys.map((k) => k.kid));
      expect(await kids()).toContain(rotation.retiredKids[0]);
      t.clock.advance(7200 + 301);
      expect(await kids()).toEqual([rotation.kid]);
    });
  });
});
