import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { testCertificate } from '@mp/testing';
import { signWithPlatformKey, testSecretsKey } from '../support/identity.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// The SDK's browser entry (`@mp/sdk/browser`: globalThis.fetch, Web Crypto, a caller-held session)
// against the real platform. It runs in a child Node process because fetch cannot be given a CA
// per call: the child trusts the test certificate through NODE_EXTRA_CA_CERTS, as a browser would
// trust the platform's. The child is the code a browser app writes: the access token in memory,
// refresh() renewing it (here from a refresh token, in the console from its cookie endpoint).
const CHILD = `
import { ApiError, MonitoringPlatform } from '@mp/sdk/browser';
const { BASE, EXPIRED, REFRESH } = process.env;
let token = EXPIRED;
let refreshes = 0;
let endedRefreshes = 0;
const session = {
  accessToken: () => token,
  async refresh() {
    refreshes++;
    const res = await fetch(BASE + '/auth/refresh', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: REFRESH }) });
    if (!res.ok) return false;
    token = (await res.json()).data.access_token;
    return true;
  },
};
const mp = new MonitoringPlatform({ baseUrl: BASE, session });
const created = await mp.request('POST /projects', { body: { name: 'Fetched', number: 'FT-1' } });
const fetched = await mp.request('GET /projects/{project_id}', { path: { project_id: created.id } });
const refusedErr = await mp.request('POST /projects', { body: { name: '', number: 'FT-2' } }).catch((e) => e);
const ended = new MonitoringPlatform({ baseUrl: BASE, session: { accessToken: () => EXPIRED, refresh: async () => (endedRefreshes++, false) } });
const endedErr = await ended.request('GET /me').catch((e) => e);
const pick = (e) => ({ isApiError: e instanceof ApiError, status: e.status, code: e.code, field: e.field });
console.log(JSON.stringify({ created, fetched, refreshes, renewed: token !== EXPIRED, refused: pick(refusedErr), ended: pick(endedErr), endedRefreshes }));
`;

describe('SDK browser entry (fetch transport) against the platform', () => {
  const secretsKey = testSecretsKey();
  let t: TestPlatform;
  let dir: string;

  beforeAll(async () => {
    t = await startTestPlatform({ MP_SECRETS_KEY: secretsKey });
    dir = await mkdtemp(join(tmpdir(), 'mp-sdk-fetch-'));
    await writeFile(join(dir, 'ca.pem'), (await testCertificate()).cert);
  });
  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('renews a caller-held session once on 401002, creates once, and throws typed refusals', async () => {
    const login = await t.api('POST', '/auth/login', { body: { ...t.admin, grant_type: 'password' } });
    const claims = decodeJwt(login.body.data.access_token);
    const now = Math.floor(Date.now() / 1000);
    const expired = await signWithPlatformKey(t, secretsKey, { ...claims, iat: now - 7300, exp: now - 100 });

    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), BASE: t.base, EXPIRED: expired, REFRESH: login.body.data.refresh_token },
    });
    const out = JSON.parse(stdout);

    expect(out.refreshes).toBe(1);
    expect(out.renewed).toBe(true);
    expect(out.created).toMatchObject({ name: 'Fetched', number: 'FT-1' });
    expect(out.fetched.id).toBe(out.created.id);
    expect(out.refused).toEqual({ isApiError: true, status: 400, code: 400003, field: 'name' });
    // refresh() answering false ends the session: the 401002 itself is thrown after one ask, nothing repeated.
    expect(out.ended).toEqual({ isApiError: true, status: 401, code: 401002, field: 'Authorization' });
    expect(out.endedRefreshes).toBe(1);

    // Exactly one project was stored, the one the child read back; the refused one left nothing.
    const list = await t.api('GET', '/projects?limit=100', { headers: { authorization: `Bearer ${login.body.data.access_token}` } });
    expect(list.body.data.items.map((p: { number: string }) => p.number)).toEqual(['FT-1']);
  });
});
