import { generateKeyPair, SignJWT, decodeProtectedHeader, decodeJwt } from 'jose';
import { queryTestDatabase } from '@mp/testing';
import { ALL_PERMISSIONS, expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

describe('authentication at the gateway', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform();
  });
  afterAll(() => t?.stop());

  it('logs in with the token object of spec 2.1', async () => {
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
    const created = await t.api('POST', '/api-keys', { headers: { authorization: `Bearer ${token}` }, body: { name: 'to revoke', permissions: ['project:read'] } });
    const { id, key } = created.body.data;
    expect((await t.api('GET', '/projects', { headers: { 'x-api-key': key } })).status).toBe(200);
    const revoked = await t.api('DELETE', `/api-keys/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).not.toBeNull();
    expectError(await t.api('GET', '/projects', { headers: { 'x-api-key': key } }), 401001);
  });

  it('stores only a hash of an API key and shows the value only once', async () => {
    const token = await t.login();
    const created = await t.api('POST', '/api-keys', { headers: { authorization: `Bearer ${token}` }, body: { name: 'hash check', permissions: ['data:read'] } });
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
    const foreign = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: decodeProtectedHeader(token).kid! }).sign(privateKey);
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
});
