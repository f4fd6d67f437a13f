import { queryTestDatabase } from '@mp/testing';
import { ALL_PERMISSIONS, expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { gatewayRoutes } from '@mp/gateway';
import { ID_PREFIXES, type IdKind } from '@mp/kit';
import { createTenant, identityClient, tenantKey } from '../support/identity.js';

// Every route's permission is enforced in one place, the guard route() builds from the route's
// spec: a key holding every permission but the needed one gets 401004 before any service is
// asked; a key holding only that one gets past the gateway. The table is read from the routes the
// gateway mounts, so a new route is covered without being listed here. Then 403001–403004:
// membership and role (projects service), tenant isolation, plans.
const P = `${ID_PREFIXES.project}_${'a'.repeat(20)}`;
const KIND_OF: Record<string, IdKind> = {
  project_id: 'project',
  point_id: 'point',
  data_id: 'data',
  batch_id: 'batch',
  task_id: 'task',
  device_id: 'device',
  user_id: 'user',
  key_id: 'apiKey',
  webhook_id: 'webhook',
  delivery_id: 'delivery',
  client_id: 'client',
  alarm_id: 'alarm',
  template_id: 'template',
  report_id: 'report',
  schedule_id: 'reportSchedule',
};
/** A well-formed id for each path parameter (no such resource exists). */
const concrete = (path: string) =>
  path.replace(/:(\w+)/g, (_, name: string) => (name === 'error_code' ? '401004' : `${ID_PREFIXES[KIND_OF[name]!]}_${'a'.repeat(20)}`));
const MOUNTED = gatewayRoutes().flatMap((r) =>
  r.spec && r.path.startsWith('/v3/') ? [{ method: r.method, path: concrete(r.path.slice('/v3'.length)), spec: r.spec }] : [],
);
const ROUTES: [method: string, path: string, permission: string][] = MOUNTED.flatMap((r) =>
  r.spec.permission ? [[r.method, r.path, r.spec.permission] as [string, string, string]] : [],
);
/** Endpoints any authenticated caller may use. */
const ANY_CALLER: [string, string][] = MOUNTED.flatMap((r) => (r.spec.auth !== 'none' && !r.spec.permission ? [[r.method, r.path] as [string, string]] : []));

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
    // The table is the route table's: every permission guards some route, and the routes named here are in it.
    expect(new Set(ROUTES.map(([, , permission]) => permission))).toEqual(new Set(ALL_PERMISSIONS));
    expect(ROUTES).toContainEqual(['POST', '/projects', 'project:write']);
    expect(ROUTES).toContainEqual(['GET', '/webhooks/whk_aaaaaaaaaaaaaaaaaaaa/deliveries', 'system:admin']);
    expect(ANY_CALLER).toEqual(
      expect.arrayContaining([
        ['GET', '/me'],
        ['GET', '/errors/401004'],
      ]),
    );
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
      // A route may need more than its declared permission (a report's documents hold its project's
      // data, so making or downloading one also needs project:read and data:read): a refusal for
      // another permission means this one's guard let the key through.
      const forAnother = passed.body?.code === 401004 && !String(passed.body.data?.detail).includes(` ${permission} `);
      if ((passed.status === 401 && !forAnother) || passed.status >= 500) {
        throw new Error(`${method} ${path} with only ${permission}: ${passed.status} ${passed.text}`);
      }
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

    it('403004: a feature the tenant plan does not license (sandbox, OAuth applications, batches, reports)', async () => {
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
        // Every route whose spec names a plan feature refuses it before reading the body or asking a service.
        const featured = MOUNTED.filter((r) => r.spec.feature);
        expect(featured.map((r) => `${r.method} ${r.path}`)).toEqual(
          expect.arrayContaining([`POST /projects/${P}/data/batches`, `POST /projects/${P}/reports`]),
        );
        const everything = { 'x-api-key': await tenantKey(id, bare, ALL_PERMISSIONS) };
        for (const r of featured) {
          const refused = await t.api(r.method, r.path, { headers: everything, rawBody: 'not json' });
          expectError(refused, 403004);
          expect(refused.body.data.detail).toMatch(/is not part of your plan \(bare\)\.$/);
        }
      } finally {
        id.close();
      }
    });
  });
});
