import https from 'node:https';
import { createLogger } from '@mp/kit';
import { LogCapture, queryTestDatabase, testCertificate, type ApiResponse } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

/**
 * Behind an ingress every request comes from the ingress's address. With MP_TRUSTED_PROXIES
 * naming it (here 127.0.0.1 plays the ingress), the gateway takes the client from
 * X-Forwarded-For, so sign-in limits and lockouts are per real client; from any other peer
 * (127.0.0.2 here) the header is ignored and cannot be used to escape a limit (ADR 0075).
 */
describe('security: client addresses through trusted proxies', () => {
  let t: TestPlatform;
  let admin: Record<string, string>;
  const logs = new LogCapture();
  const AUTH_PER_MINUTE = 8;
  const INGRESS = '127.0.0.1';
  const STRANGER = '127.0.0.2';

  /** POST /auth/login from a loopback address of our choice, with the X-Forwarded-For given. */
  async function login(from: string, forwardedFor: string | null, username: string, password: string): Promise<ApiResponse> {
    const ca = (await testCertificate()).cert;
    const payload = JSON.stringify({ username, password, grant_type: 'password' });
    return new Promise((resolve, reject) => {
      const req = https.request(
        `${t.base}/auth/login`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(payload)),
            ...(forwardedFor === null ? {} : { 'x-forwarded-for': forwardedFor }),
          },
          ca,
          agent: false,
          localAddress: from,
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
  const createUser = async (username: string, password: string) => {
    const res = await t.api('POST', '/users', { headers: admin, body: { username, password, name: username, permissions: ['project:read'] } });
    expect(res.status).toBe(200);
  };
  const failureSources = async (username: string) =>
    (
      await queryTestDatabase<{ source: string }>(
        t.db.url,
        "SELECT source FROM identity.login_failures WHERE username_key = encode(sha256(convert_to($1, 'UTF8')), 'hex') ORDER BY source",
        [username],
      )
    ).map((r) => r.source);

  beforeAll(async () => {
    t = await startTestPlatform(
      { MP_TRUSTED_PROXIES: `${INGRESS}, 10.42.0.0/16`, MP_LIMIT_AUTH_PER_MINUTE: String(AUTH_PER_MINUTE) },
      { logger: createLogger('platform', 'info', logs) },
    );
    // The administrator signs in from 127.0.0.3, so that this sign-in uses no test’s budget.
    const res = await login('127.0.0.3', null, t.admin.username, t.admin.password);
    expect(res.status).toBe(200);
    admin = { authorization: `Bearer ${res.body.data.access_token}` };
  }, 120_000);
  afterAll(async () => t?.stop());

  it('locks a username for one forwarded client only: a second client behind the same ingress still signs in', async () => {
    await createUser('proxied.user', 'the right password');
    const A = '203.0.113.1';
    const B = '203.0.113.2';
    for (let i = 1; i <= 4; i++) expectError(await login(INGRESS, A, 'proxied.user', `wrong ${i}`), 401008, 'password');
    expectError(await login(INGRESS, A, 'proxied.user', 'wrong 5'), 401007);
    expectError(await login(INGRESS, A, 'proxied.user', 'the right password'), 401007);
    // The client wrote an X-Forwarded-For of its own: the ingress appended A, and A is who counts.
    expectError(await login(INGRESS, `${B}, ${A}`, 'proxied.user', 'the right password'), 401007);

    const fromB = await login(INGRESS, B, 'proxied.user', 'the right password');
    expect(fromB.status).toBe(200);
    expect(await failureSources('proxied.user')).toEqual([A]);
    // The access lines name the forwarded clients, not the ingress.
    const lines = logs.records().filter((r) => r.msg === 'request' && r.route === '/v3/auth/login');
    expect(lines.filter((r) => r.client_address === A)).toHaveLength(7);
    expect(lines.filter((r) => r.client_address === B)).toHaveLength(1);
    expect(lines.filter((r) => r.client_address === INGRESS)).toHaveLength(0);
  });

  it('gives each forwarded client its own sign-in rate limit (429005)', async () => {
    const C = '2001:db8:c::1';
    const D = '198.51.100.4';
    // A different username each time, so no lockout comes first: this is about the request limit.
    for (let i = 0; i < AUTH_PER_MINUTE; i++) expectError(await login(INGRESS, C, `nobody.${i}`, 'a guess'), 401008, 'password');
    expectError(await login(INGRESS, C, 'nobody.here', 'one more'), 429005);
    // Another address of C's /64 is the same source.
    expectError(await login(INGRESS, '2001:db8:c::2', 'nobody.here', 'one more'), 429005);
    expectError(await login(INGRESS, D, 'nobody.here', 'first guess'), 401008, 'password');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy: spoofing escapes neither the lockout nor the limit', async () => {
    await createUser('spoof.target', 'the right password');
    for (let i = 1; i <= 4; i++) expectError(await login(STRANGER, `198.51.100.${10 + i}`, 'spoof.target', `wrong ${i}`), 401008, 'password');
    expectError(await login(STRANGER, '198.51.100.15', 'spoof.target', 'wrong 5'), 401007);
    // A fresh forged address does not get a fresh count: the stranger itself is locked.
    expectError(await login(STRANGER, '198.51.100.16', 'spoof.target', 'the right password'), 401007);
    expect(await failureSources('spoof.target')).toEqual([STRANGER]);

    // The stranger has used 6 of its sign-ins; two more reach the limit, whatever it forges.
    expectError(await login(STRANGER, '198.51.100.17', 'spoof.target', 'the right password'), 401007);
    expectError(await login(STRANGER, '198.51.100.18', 'spoof.target', 'the right password'), 401007);
    expectError(await login(STRANGER, '198.51.100.19', 'spoof.target', 'the right password'), 429005);
    expectError(await login(STRANGER, null, 'spoof.target', 'the right password'), 429005);
    const lines = logs.records().filter((r) => r.msg === 'request' && r.route === '/v3/auth/login' && String(r.client_address).startsWith('198.51.100.1'));
    expect(lines).toEqual([]);

    // The owner, from elsewhere, is not affected.
    expect((await login('127.0.0.4', null, 'spoof.target', 'the right password')).status).toBe(200);
  });
});
