import { createLocalJWKSet, decodeJwt, importJWK, jwtVerify, SignJWT, type JSONWebKeySet, type JWK, type JWTPayload } from 'jose';
import { SecretBox } from '@mp/kit';
import { ADMIN, anon, rejection, startTestIdentity, type TestIdentity } from './support.js';

describe('identity: refresh tokens', () => {
  let t: TestIdentity;
  const login = (environment: 'live' | 'sandbox' = 'live') => t.client.login({ ...ADMIN, environment, clientAddress: '' }, anon(environment));
  const refresh = (refreshToken: string, environment: 'live' | 'sandbox' = 'live') => t.client.refresh({ refreshToken, environment }, anon(environment));
  const familyRows = (familyId: string) =>
    t.sql<{ jti: string; used_at: string | null; revoked_at: string | null }>(
      'SELECT jti, used_at, revoked_at FROM identity.refresh_tokens WHERE family_id = $1 ORDER BY created_at',
      [familyId],
    );

  beforeAll(async () => {
    t = await startTestIdentity();
  });
  afterAll(() => t?.stop());
  afterEach(() => t?.clock.reset());

  /** Signs a refresh token with the service's real signing key (unsealed with its master key). */
  const signWithServiceKey = async (claims: JWTPayload) => {
    const [row] = await t.sql<{ kid: string; private_jwk_sealed: string }>(
      'SELECT kid, private_jwk_sealed FROM identity.signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1',
    );
    const key = await importJWK(JSON.parse(new SecretBox(t.secretsKey).open(row!.private_jwk_sealed)) as JWK, 'EdDSA');
    return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: row!.kid, typ: 'rt+jwt' }).sign(key);
  };

  it('rotates: a refresh returns a new pair in the same family and uses up the old refresh token', async () => {
    const first = await login();
    const second = await refresh(first.refreshToken);
    expect(second).toMatchObject({ tokenType: 'Bearer', expiresIn: 7200, scope: first.scope });
    expect(second.refreshToken).not.toBe(first.refreshToken);
    const [a, b] = [decodeJwt(first.refreshToken), decodeJwt(second.refreshToken)];
    expect(b.fam).toBe(a.fam);
    expect(b.jti).not.toBe(a.jti);

    const jwks = await t.client.getJwks({}, anon());
    const { payload } = await jwtVerify(second.accessToken, createLocalJWKSet(JSON.parse(jwks.jwksJson) as JSONWebKeySet), {
      algorithms: ['EdDSA'],
      issuer: jwks.issuer,
      audience: jwks.audience,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ sub: a.sub, tid: a.tid, env: 'live' });

    const rows = await familyRows(a.fam as string);
    expect(rows.map((r) => r.jti)).toEqual([a.jti, b.jti]);
    expect(rows[0]!.used_at).not.toBeNull();
    expect(rows[1]!.used_at).toBeNull();
    expect(rows.every((r) => r.revoked_at === null)).toBe(true);
  });

  it('revokes the whole family when a used refresh token is presented again (401003), so the newer one fails too', async () => {
    const first = await login();
    const second = await refresh(first.refreshToken);
    expect(await rejection(refresh(first.refreshToken))).toMatchObject({ code: '401003', field: 'refresh_token' });
    expect(await rejection(refresh(second.refreshToken))).toMatchObject({ code: '401003', field: 'refresh_token' });
    const rows = await familyRows(decodeJwt(first.refreshToken).fam as string);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.revoked_at !== null)).toBe(true);
  });

  it('lets only one of two concurrent refreshes with the same token succeed', async () => {
    const first = await login();
    const results = await Promise.allSettled([refresh(first.refreshToken), refresh(first.refreshToken)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).toMatchObject({ code: '401003' });
  });

  it('refuses an expired refresh token with 401002', async () => {
    const first = await login();
    t.clock.advance(30 * 86_400 + 60);
    expect(await rejection(refresh(first.refreshToken))).toMatchObject({ code: '401002', field: 'refresh_token' });
  });

  it('refuses a refresh token issued in the future (beyond a minute of clock skew) or living longer than 30 days with 401003', async () => {
    // issued by identity itself an hour ahead of the clock that now checks it
    t.clock.advance(3600);
    const ahead = await login();
    t.clock.reset();
    expect(await rejection(refresh(ahead.refreshToken))).toMatchObject({ code: '401003', field: 'refresh_token' });

    // genuine claims and key, but a year-long lifetime
    const genuine = await login();
    const claims = decodeJwt(genuine.refreshToken);
    const now = Math.floor(Date.now() / 1000);
    const longLived = await signWithServiceKey({ ...claims, iat: now - 10, exp: now + 365 * 86_400 });
    expect(await rejection(refresh(longLived))).toMatchObject({ code: '401003', field: 'refresh_token' });
    // a small skew is tolerated; neither refusal used the genuine token up
    const skewed = await signWithServiceKey({ ...claims, iat: now + 30, exp: now + 30 + 30 * 86_400 });
    expect((await refresh(skewed)).accessToken).toBeTruthy();
  });

  it('refuses a tampered token, an access token, garbage and a token of the other environment with 401003', async () => {
    const first = await login();
    const [h, p, s] = first.refreshToken.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'usr_someoneelse000000000' })).toString('base64url')}.${s}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'rt+jwt' })).toString('base64url')}.${p}.`;
    for (const token of [tampered, none, first.accessToken, 'not-a-jwt']) {
      expect(await rejection(refresh(token))).toMatchObject({ code: '401003', field: 'refresh_token' });
    }
    expect(await rejection(refresh(first.refreshToken, 'sandbox'))).toMatchObject({ code: '401003' });
    // none of these used the token up
    expect((await refresh(first.refreshToken)).accessToken).toBeTruthy();
  });

  it('refuses to refresh for a user disabled since sign-in with 401006', async () => {
    const first = await login('sandbox');
    await t.sql('UPDATE identity.users SET disabled = true WHERE username = $1', [ADMIN.username]);
    try {
      expect(await rejection(refresh(first.refreshToken, 'sandbox'))).toMatchObject({ code: '401006' });
    } finally {
      await t.sql('UPDATE identity.users SET disabled = false WHERE username = $1', [ADMIN.username]);
    }
  });
});
