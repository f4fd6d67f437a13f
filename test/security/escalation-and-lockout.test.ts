import https from 'node:https';
import { decodeJwt } from 'jose';
import { queryTestDatabase, testCertificate, type ApiResponse } from '@mp/testing';
import { ALL_PERMISSIONS, expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { signWithPlatformKey, testSecretsKey } from '../support/identity.js';

/**
 * ADR 0019 (tokens), tried through the HTTPS API as an attacker would, with the
 * default lockout settings (ADR 0019).
 */
describe('security: privilege escalation, lockout as a weapon, forged token times', () => {
  let t: TestPlatform;
  let admin: Record<string, string>;
  const secretsKey = testSecretsKey();
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  /**
   * POST /auth/login from a chosen loopback address (the whole of 127.0.0.0/8 is local on
   * Linux), so that the gateway sees distinct client addresses as it would distinct machines.
   */
  async function loginFrom(source: string, username: string, password: string): Promise<ApiResponse> {
    const ca = (await testCertificate()).cert;
    const payload = JSON.stringify({ username, password, grant_type: 'password' });
    return new Promise((resolve, reject) => {
      const req = https.request(
        `${t.base}/auth/login`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
          ca,
          agent: false,
          localAddress: source,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text), text, bytes: Buffer.concat(chunks) });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const createUser = async (username: string, password: string, permissions: string[]) => {
    const res = await t.api('POST', '/users', { headers: admin, body: { username, password, name: username, permissions } });
    expect(res.status).toBe(200);
    return res.body.data as { id: string };
  };
  const signIn = async (username: string, password: string) => {
    const res = await t.api('POST', '/auth/login', { body: { username, password, grant_type: 'password' } });
    expect(res.status).toBe(200);
    return res.body.data as { access_token: string; refresh_token: string; scope: string };
  };
  const userRow = async (id: string) =>
    queryTestDatabase(t.db.url, 'SELECT password_hash, permissions, disabled, version, name FROM identity.users WHERE id = $1', [id]);

  beforeAll(async () => {
    t = await startTestPlatform({ MP_SECRETS_KEY: secretsKey });
    admin = bearer(await t.login());
  });
  afterAll(() => t?.stop());

  describe('a system:admin cannot reach a more privileged principal', () => {
    let narrow: Record<string, string>;
    let narrowId: string;

    beforeAll(async () => {
      narrowId = (await createUser('narrow.admin', 'narrow admin password', ['system:admin'])).id;
      narrow = bearer((await signIn('narrow.admin', 'narrow admin password')).access_token);
    });

    it('refuses to change the password of, disable, re-permission, unlock or delete a wider user (401004); nothing changes', async () => {
      const boss = await createUser('the.boss', 'the boss password', ALL_PERMISSIONS);
      const before = await userRow(boss.id);
      const attempts = [
        t.api('PATCH', `/users/${boss.id}`, { headers: narrow, body: { password: 'taken over at last' } }),
        t.api('PATCH', `/users/${boss.id}`, { headers: narrow, body: { disabled: true } }),
        t.api('PATCH', `/users/${boss.id}`, { headers: narrow, body: { permissions: ['system:admin'] } }),
        t.api('PATCH', `/users/${boss.id}`, { headers: narrow, body: { unlock: true } }),
        t.api('DELETE', `/users/${boss.id}`, { headers: narrow }),
      ];
      for (const res of await Promise.all(attempts)) expectError(res, 401004, 'user_id');
      expect(await userRow(boss.id)).toEqual(before);
      const session = await signIn('the.boss', 'the boss password');
      expect(session.scope.split(' ').sort()).toEqual([...ALL_PERMISSIONS].sort());
      expectError(
        await t.api('POST', '/auth/login', { body: { username: 'the.boss', password: 'taken over at last', grant_type: 'password' } }),
        401008,
        'password',
      );
    });

    it('refuses to widen itself with PATCH of its own user, and to roll or revoke a wider API key', async () => {
      expectError(
        await t.api('PATCH', `/users/${narrowId}`, { headers: narrow, body: { permissions: ['system:admin', 'data:write'] } }),
        401004,
        'permissions[1]',
      );
      expect(await userRow(narrowId)).toEqual([expect.objectContaining({ permissions: ['system:admin'], version: 1 })]);

      const wide = (await t.api('POST', '/api-keys', { headers: admin, body: { name: 'wide', permissions: ALL_PERMISSIONS } })).body.data;
      const keyRow = () => queryTestDatabase(t.db.url, 'SELECT key_hash, revoked_at, rolled_at FROM identity.api_keys WHERE id = $1', [wide.id]);
      const before = await keyRow();
      expectError(await t.api('POST', `/api-keys/${wide.id}/roll`, { headers: narrow, body: { grace_period_seconds: 0 } }), 401004, 'key_id');
      expectError(await t.api('DELETE', `/api-keys/${wide.id}`, { headers: narrow }), 401004, 'key_id');
      expect(await keyRow()).toEqual(before);
      expect((await t.api('GET', '/projects', { headers: { 'x-api-key': wide.key } })).status).toBe(200);
    });

    it("ends the target's sessions when its password is changed: refresh token and access token refused", async () => {
      const peer = await createUser('peer.admin', 'peer admin password', ['system:admin']);
      const session = await signIn('peer.admin', 'peer admin password');
      expect((await t.api('GET', '/me', { headers: bearer(session.access_token) })).status).toBe(200);
      expect((await t.api('PATCH', `/users/${peer.id}`, { headers: narrow, body: { password: 'reset by a peer' } })).status).toBe(200);
      expectError(await t.api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } }), 401003, 'refresh_token');
      expectError(await t.api('GET', '/me', { headers: bearer(session.access_token) }), 401003, 'Authorization');
      expect((await signIn('peer.admin', 'reset by a peer')).access_token).toBeTruthy();
    });
  });

  describe('lockout per account and source', () => {
    it('locks source A after 5 wrong passwords (401007 with Retry-After, even for the right one) while the owner signs in from B', async () => {
      await createUser('lock.target', 'the right password', ['project:read']);
      const A = '127.0.0.11';
      const B = '127.0.0.12';
      for (let i = 1; i <= 4; i++) expectError(await loginFrom(A, 'lock.target', `wrong ${i}`), 401008, 'password');
      const locked = await loginFrom(A, 'lock.target', 'wrong 5');
      expectError(locked, 401007);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(1790);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(1800);
      const rightFromA = await loginFrom(A, 'lock.target', 'the right password');
      expectError(rightFromA, 401007);
      expect(Number(rightFromA.headers['retry-after'])).toBeGreaterThan(1790);

      const owner = await loginFrom(B, 'lock.target', 'the right password');
      expect(owner.status).toBe(200);
      expect(owner.body.data.scope).toBe('project:read');
      expectError(await loginFrom(A, 'lock.target', 'the right password'), 401007);
    });

    it('answers unknown usernames exactly like known ones: codes, fields, texts and headers', async () => {
      await createUser('known.probe', 'known probe password', ['project:read']);
      const C = '127.0.0.13';
      const shape = (res: ApiResponse) => {
        const timeless = (s: string) => s.replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, '<time>');
        return {
          status: res.status,
          code: res.body.code,
          message: res.body.message,
          field: res.body.data.field,
          detail: timeless(res.body.data.detail),
          suggestion: timeless(res.body.data.suggestion),
          retryAfter: res.headers['retry-after'] === undefined ? null : Math.round(Number(res.headers['retry-after']) / 60),
          headers: Object.keys(res.headers).sort(),
        };
      };
      const answers = async (username: string) => {
        const out = [];
        for (let i = 1; i <= 6; i++) out.push(shape(await loginFrom(C, username, `wrong guess ${i}`)));
        return out;
      };
      const known = await answers('known.probe');
      const unknown = await answers('no.such.user');
      expect(unknown).toEqual(known);
      expect(known.map((a) => a.code)).toEqual([401008, 401008, 401008, 401008, 401007, 401007]);
    });
  });

  describe('access and refresh tokens with times identity never issues', () => {
    it('refuses an access token issued in the future or living far over 7200 s with 401003; a small skew passes', async () => {
      const session = await signIn(t.admin.username, t.admin.password);
      const claims = decodeJwt(session.access_token);
      const now = Math.floor(Date.now() / 1000);
      const future = await signWithPlatformKey(t, secretsKey, { ...claims, iat: now + 3600, exp: now + 3600 + 7200 });
      expectError(await t.api('GET', '/projects', { headers: bearer(future) }), 401003, 'Authorization');
      const decade = await signWithPlatformKey(t, secretsKey, { ...claims, iat: now - 60, exp: now + 10 * 365 * 86_400 });
      expectError(await t.api('GET', '/projects', { headers: bearer(decade) }), 401003, 'Authorization');
      const skewed = await signWithPlatformKey(t, secretsKey, { ...claims, iat: now + 20, exp: now + 20 + 7200 });
      expect((await t.api('GET', '/projects', { headers: bearer(skewed) })).status).toBe(200);
    });

    it('refuses a refresh token living longer than identity issues them with 401003, without using up the session', async () => {
      const session = await signIn(t.admin.username, t.admin.password);
      const claims = decodeJwt(session.refresh_token);
      const now = Math.floor(Date.now() / 1000);
      const forever = await signWithPlatformKey(t, secretsKey, { ...claims, iat: now - 60, exp: now + 10 * 365 * 86_400 }, { typ: 'rt+jwt' });
      expectError(await t.api('POST', '/auth/refresh', { body: { refresh_token: forever } }), 401003, 'refresh_token');
      expect((await t.api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } })).status).toBe(200);
    });
  });
});
