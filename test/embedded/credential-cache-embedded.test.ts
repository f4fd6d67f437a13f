import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform, type RunningPlatform } from '@mp/launcher';
import { createLogger } from '@mp/kit';
import { httpsRequest, testCertificate, type ApiResponse } from '@mp/testing';

// The gateway's credential cache (ADR 0119) on the embedded default: no Redis, so identity and the
// gateway share the auth versions in the memory of their one process. The cache answers (its
// counters move), and a revoked key, a logout and a removed permission are refused at the next request.
describe('credential cache on the embedded default', () => {
  let dataDir: string;
  let platform: RunningPlatform;
  let base: string;
  let ca: string;
  let adminBearer: Record<string, string>;
  const admin = { username: 'admin', password: 'correct horse battery staple' };
  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    httpsRequest(`${base}${path}`, { method, ca, headers, ...(body !== undefined ? { body } : {}) });
  const ok = (res: ApiResponse) => {
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text}`);
    return res.body.data;
  };
  const hits = async () => Number(/^mp_gateway_credential_cache_hits_total (\d+)$/m.exec((await platform.gateway.metrics()).text)?.[1]);
  /** Two answers asked of identity, then one from the cache. */
  const warm = async (headers: Record<string, string>) => {
    ok(await call('GET', '/projects?limit=1', headers));
    ok(await call('GET', '/projects?limit=1', headers));
    const before = await hits();
    ok(await call('GET', '/projects?limit=1', headers));
    expect(await hits()).toBe(before + 1);
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-cache-embedded-'));
    const tls = await testCertificate();
    ca = tls.cert;
    platform = await startPlatform({
      tls,
      logger: createLogger('test', process.env.MP_LOG_LEVEL ?? 'warn'),
      env: {
        MP_DATA_DIR: dataDir,
        MP_HTTPS_PORT: '0',
        MP_SANDBOX_HTTPS_PORT: '0',
        MP_OPS_PORT: '0',
        MP_BIND_HOST: '127.0.0.1',
        MP_ADMIN_USERNAME: admin.username,
        MP_ADMIN_PASSWORD: admin.password,
      },
    });
    expect(platform.mode).toBe('embedded');
    base = `https://127.0.0.1:${platform.gateway.port}/v3`;
    const login = ok(await call('POST', '/auth/login', {}, { ...admin, grant_type: 'password' }));
    adminBearer = { authorization: `Bearer ${login.access_token}` };
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a revoked key at the next request (401001)', async () => {
    const created = ok(await call('POST', '/api-keys', adminBearer, { name: 'embedded cache', permissions: ['project:read'] }));
    const headers = { 'x-api-key': created.key };
    await warm(headers);
    ok(await call('DELETE', `/api-keys/${created.id}`, adminBearer));
    const res = await call('GET', '/projects?limit=1', headers);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 401001 });
  });

  it('refuses a removed permission, then a signed-out session, at the next request (401004, 401003)', async () => {
    const user = ok(
      await call('POST', '/users', adminBearer, {
        username: 'embedded.cache',
        name: 'Embedded cache',
        password: 'embedded cache 0123',
        permissions: ['project:read', 'data:read'],
      }),
    );
    const login = ok(await call('POST', '/auth/login', {}, { username: 'embedded.cache', password: 'embedded cache 0123', grant_type: 'password' }));
    const headers = { authorization: `Bearer ${login.access_token}` };
    await warm(headers);
    ok(await call('PATCH', `/users/${user.id}`, adminBearer, { permissions: ['data:read'] }));
    const refused = await call('GET', '/projects?limit=1', headers);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 401004 });
    ok(await call('PATCH', `/users/${user.id}`, adminBearer, { permissions: ['project:read', 'data:read'] }));
    await warm(headers);
    ok(await call('POST', '/auth/logout', {}, { refresh_token: login.refresh_token }));
    const ended = await call('GET', '/projects?limit=1', headers);
    expect({ status: ended.status, code: ended.body.code }).toEqual({ status: 401, code: 401003 });
  });
});
