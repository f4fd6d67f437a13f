import { queryTestDatabase } from '@mp/testing';
import { ALL_PERMISSIONS, expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { createTenant, identityClient, tenantKey } from '../support/identity.js';

// The permission table of api-surface.md, enforced in one place — the gateway's
// requirePermission — for every endpoint of the API: a key holding every permission but the
// needed one gets 401004 before any service is asked; a key holding only that one gets past the
// gateway. Then 403001–403004: membership and role (projects service), tenant isolation, plans.
const P = 'prj_aaaaaaaaaaaaaaaaaaaa';
const ROUTES: [method: string, path: string, permission: string][] = [
  ['GET', '/projects', 'project:read'],
  ['POST', '/projects', 'project:write'],
  ['GET', `/projects/${P}`, 'project:read'],
  ['PATCH', `/projects/${P}`, 'project:write'],
  ['DELETE', `/projects/${P}`, 'project:write'],
  ['PUT', `/projects/${P}/status`, 'project:write'],
  ['GET', `/projects/${P}/members`, 'project:read'],
  ['POST', `/projects/${P}/members`, 'project:write'],
  ['DELETE', `/projects/${P}/members/usr_aaaaaaaaaaaaaaaaaaaa`, 'project:write'],
  ['GET', `/projects/${P}/points`, 'project:read'],
  ['POST', `/projects/${P}/points`, 'project:write'],
  ['GET', '/points/pt_aaaaaaaaaaaaaaaaaaaa', 'project:read'],
  ['PATCH', '/points/pt_aaaaaaaaaaaaaaaaaaaa', 'project:write'],
  ['DELETE', '/points/pt_aaaaaaaaaaaaaaaaaaaa', 'project:write'],
  ['GET', '/devices', 'project:read'],
  ['POST', '/devices', 'project:write'],
  ['GET', '/devices/dev_aaaaaaaaaaaaaaaaaaaa', 'project:read'],
  ['PATCH', '/devices/dev_aaaaaaaaaaaaaaaaaaaa', 'project:write'],
  ['DELETE', '/devices/dev_aaaaaaaaaaaaaaaaaaaa', 'project:write'],
  ['GET', `/projects/${P}/tasks`, 'task:read'],
  ['POST', `/projects/${P}/tasks`, 'task:write'],
  ['GET', '/tasks/tsk_aaaaaaaaaaaaaaaaaaaa', 'task:read'],
  ['PATCH', '/tasks/tsk_aaaaaaaaaaaaaaaaaaaa', 'task:write'],
  ['DELETE', '/tasks/tsk_aaaaaaaaaaaaaaaaaaaa', 'task:write'],
  ['PUT', '/tasks/tsk_aaaaaaaaaaaaaaaaaaaa/status', 'task:write'],
  ['POST', '/tasks/tsk_aaaaaaaaaaaaaaaaaaaa/assign', 'task:write'],
  ['POST', `/projects/${P}/data`, 'data:write'],
  ['POST', `/projects/${P}/data/batches`, 'data:write'],
  ['GET', '/data/batches/bat_aaaaaaaaaaaaaaaaaaaa', 'data:read'],
  ['GET', `/projects/${P}/data`, 'data:read'],
  ['GET', `/projects/${P}/data/latest`, 'data:read'],
  ['GET', '/points/pt_aaaaaaaaaaaaaaaaaaaa/data', 'data:read'],
  ['GET', '/points/pt_aaaaaaaaaaaaaaaaaaaa/series', 'data:read'],
  ['GET', '/data/dat_aaaaaaaaaaaaaaaaaaaa', 'data:read'],
  ['PATCH', '/data/dat_aaaaaaaaaaaaaaaaaaaa', 'data:write'],
  ['DELETE', '/data/dat_aaaaaaaaaaaaaaaaaaaa', 'data:write'],
  ['GET', '/errors', 'system:read'],
  ['GET', '/users', 'system:admin'],
  ['POST', '/users', 'system:admin'],
  ['GET', '/users/usr_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['PATCH', '/users/usr_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['DELETE', '/users/usr_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['GET', '/api-keys', 'system:admin'],
  ['POST', '/api-keys', 'system:admin'],
  ['GET', '/api-keys/key_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['DELETE', '/api-keys/key_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['POST', '/api-keys/key_aaaaaaaaaaaaaaaaaaaa/roll', 'system:admin'],
  ['GET', '/oauth/clients', 'system:admin'],
  ['POST', '/oauth/clients', 'system:admin'],
  ['DELETE', '/oauth/clients/cli_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['GET', '/webhooks', 'system:admin'],
  ['POST', '/webhooks', 'system:admin'],
  ['GET', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['PUT', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['DELETE', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['POST', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa/test', 'system:admin'],
  ['GET', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa/deliveries', 'system:admin'],
  ['GET', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa/deliveries/del_aaaaaaaaaaaaaaaaaaaa', 'system:admin'],
  ['POST', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa/deliveries/del_aaaaaaaaaaaaaaaaaaaa/resend', 'system:admin'],
  ['POST', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa/rotate-secret', 'system:admin'],
];
/** Endpoints any authenticated caller may use. */
const ANY_CALLER: [string, string][] = [
  ['GET', '/me'],
  ['GET', '/errors/401004'],
];

describe('permissions', () => {
  let t: TestPlatform;
  const keys = new Map<string, { without: string; only: string }>();
  const makeKey = async (name: string, permissions: string[]) => {
    const res = await t.api('POST', '/api-keys', { headers: { authorization: `Bearer ${await t.login()}` }, body: { name, permissions } });
    if (res.status !== 200) throw new Error(res.text);
    return res.body.data.key as string;
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    for (const p of ALL_PERMISSIONS) {
      keys.set(p, {
        without: await makeKey(
          `all but ${p}`,
          ALL_PERMISSIONS.filter((x) => x !== p),
        ),
        only: await makeKey(`only ${p}`, [p]),
      });
    }
  });
  afterAll(() => t?.stop());

  it('refuses every endpoint to an identity lacking its permission with 401004, and lets one holding just that permission past the gateway', async () => {
    for (const [method, path, permission] of ROUTES) {
      const body = ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined;
      const refused = await t.api(method, path, { headers: { 'x-api-key': keys.get(permission)!.without }, ...(body ? { body } : {}) });
      try {
        expectError(refused, 401004);
        expect(refused.body.data.detail).toBe(`This request needs the ${permission} permission.`);
      } catch (err) {
        throw new Error(`${method} ${path} without ${permission}: ${refused.status} ${refused.text}\n${(err as Error).message}`);
      }
      const passed = await t.api(method, path, { headers: { 'x-api-key': keys.get(permission)!.only }, ...(body ? { body } : {}) });
      if (passed.status === 401 || passed.status >= 500) throw new Error(`${method} ${path} with only ${permission}: ${passed.status} ${passed.text}`);
    }
    for (const [method, path] of ANY_CALLER) {
      expect((await t.api(method, path, { headers: { 'x-api-key': keys.get('task:read')!.only } })).status).toBe(200);
    }
    // nothing was created by the refused requests
    expect(await queryTestDatabase(t.db.url, 'SELECT id FROM projects.projects')).toEqual([]);
  });

  it('takes API keys and user sessions on the webhook endpoints (ADR 0055): a user without system:admin is 401004', async () => {
    const admin = { authorization: `Bearer ${await t.login()}` };
    const user = { username: 'no-admin', name: 'No Admin', password: 'a long passphrase', permissions: ['project:read'] };
    expect((await t.api('POST', '/users', { headers: admin, body: user })).status).toBe(200);
    const login = await t.api('POST', '/auth/login', { body: { username: user.username, password: user.password, grant_type: 'password' } });
    expectError(await t.api('GET', '/webhooks', { headers: { authorization: `Bearer ${login.body.data.access_token}` } }), 401004);
  });

  describe('403 family', () => {
    let admin: Record<string, string>;
    let projectId: string;
    let memberToken: string;
    let outsiderToken: string;

    beforeAll(async () => {
      admin = { 'x-api-key': await makeKey('all', ALL_PERMISSIONS) };
      const make = async (username: string) => {
        const res = await t.api('POST', '/users', {
          headers: admin,
          body: { username, password: `${username} password`, name: username, permissions: ['project:read', 'project:write', 'task:read'] },
        });
        const login = await t.api('POST', '/auth/login', { body: { username, password: `${username} password`, grant_type: 'password' } });
        return { id: res.body.data.id as string, token: login.body.data.access_token as string };
      };
      const member = await make('site.viewer');
      const outsider = await make('site.outsider');
      memberToken = member.token;
      outsiderToken = outsider.token;
      projectId = (await t.api('POST', '/projects', { headers: admin, body: { name: 'Embankment north', number: 'EMB-N' } })).body.data.id;
      expect((await t.api('POST', `/projects/${projectId}/members`, { headers: admin, body: { user_id: member.id, role: 'viewer' } })).status).toBe(200);
    });

    it('403001: a user holding the permission but not a member of the project', async () => {
      expectError(await t.api('GET', `/projects/${projectId}`, { headers: { authorization: `Bearer ${outsiderToken}` } }), 403001, 'project_id');
    });

    it('403002: a read-only member writing', async () => {
      const h = { authorization: `Bearer ${memberToken}` };
      expect((await t.api('GET', `/projects/${projectId}`, { headers: h })).status).toBe(200);
      expectError(await t.api('PATCH', `/projects/${projectId}`, { headers: h, body: { name: 'Renamed' } }), 403002, 'project_id');
      expect((await t.api('GET', `/projects/${projectId}`, { headers: h })).body.data.name).toBe('Embankment north');
    });

    it('403003: another tenant resource is refused and never shows its content', async () => {
      const id = identityClient(t);
      try {
        const other = await createTenant(id);
        const foreign = { 'x-api-key': await tenantKey(id, other, ALL_PERMISSIONS) };
        const res = await t.api('GET', `/projects/${projectId}`, { headers: foreign });
        expectError(res, 403003, 'project_id');
        expect(res.text).not.toContain('Embankment');
        expectError(await t.api('PATCH', `/projects/${projectId}`, { headers: foreign, body: { name: 'Hijacked' } }), 403003, 'project_id');
        const user = (await t.api('GET', '/users', { headers: admin })).body.data.items[0];
        const u = await t.api('GET', `/users/${user.id}`, { headers: foreign });
        expectError(u, 403003, 'user_id');
        expect(u.text).not.toContain(user.username);
        expect((await t.api('GET', '/projects', { headers: foreign })).body.data.items).toEqual([]);
      } finally {
        id.close();
      }
    });

    it('403004: a feature the tenant plan does not license (sandbox, OAuth applications)', async () => {
      const id = identityClient(t);
      try {
        await id.upsertPlan(
          { name: 'bare', features: [], limits: undefined },
          { requestId: 'req_e2etesttesttesttest', tenantId: '', environment: 'live', principalId: 'op', principalType: 'system', permissions: [] },
        );
        const bare = await createTenant(id, 'bare');
        const res = await t.api('POST', '/oauth/clients', {
          headers: { 'x-api-key': await tenantKey(id, bare, ['system:admin']) },
          body: { name: 'App', redirect_uris: ['https://app.example/cb'] },
        });
        expectError(res, 403004);
        expect(res.body.data.detail).toBe('OAuth 2.0 applications is not part of your plan (bare).');
        expectError(await t.api('GET', '/me', { headers: { 'x-api-key': await tenantKey(id, bare, ['project:read'], 'sandbox') }, sandbox: true }), 403004);
      } finally {
        id.close();
      }
    });
  });
});
