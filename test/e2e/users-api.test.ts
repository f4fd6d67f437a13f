import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Users: GET/POST /users, GET/PATCH/DELETE /users/{user_id} (system:admin), GET /me.
describe('users API', () => {
  let t: TestPlatform;
  let h: Record<string, string>;
  const login = (username: string, password: string) => t.api('POST', '/auth/login', { body: { username, password, grant_type: 'password' } });

  beforeAll(async () => {
    t = await startTestPlatform();
    h = { authorization: `Bearer ${await t.login()}` };
  });
  afterAll(() => t?.stop());

  it('creates a user with name and phone (shown to administrators), version and ETag; the password is never shown', async () => {
    const res = await t.api('POST', '/users', {
      headers: h,
      body: {
        username: 'zhang.wei',
        password: 'zhang wei password',
        name: 'Zhang Wei',
        phone: '+86 138 1234 5678',
        permissions: ['project:read', 'task:write'],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^usr_[0-9a-z]{20}$/),
      username: 'zhang.wei',
      name: 'Zhang Wei',
      phone: '+86 138 1234 5678',
      permissions: ['project:read', 'task:write'],
      disabled: false,
      locked_until: null,
      last_login_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      version: 1,
    });
    expect(res.headers.etag).toBe('"1"');
    expect(res.text).not.toContain('zhang wei password');
    const signedIn = await login('zhang.wei', 'zhang wei password');
    expect(signedIn.body.data.scope).toBe('project:read task:write');
    const me = await t.api('GET', '/me', { headers: { authorization: `Bearer ${signedIn.body.data.access_token}` } });
    expect(me.body.data).toMatchObject({ principal_type: 'user', name: 'Zhang Wei', user: { username: 'zhang.wei', phone: '+86 138 1234 5678' } });
    expect(me.body.data.user.last_login_at).not.toBeNull();
  });

  it('validates creation (fields named) and stores nothing when refused', async () => {
    expectError(await t.api('POST', '/users', { headers: h, body: { password: 'long enough', name: 'X' } }), 422101, 'username');
    expectError(await t.api('POST', '/users', { headers: h, body: { username: 'x.y', password: 'short', name: 'X' } }), 400003, 'password');
    expectError(
      await t.api('POST', '/users', { headers: h, body: { username: 'x.y', password: 'long enough', name: 'X', phone: 'call me' } }),
      400004,
      'phone',
    );
    expectError(
      await t.api('POST', '/users', { headers: h, body: { username: 'x.y', password: 'long enough', name: 'X', permissions: ['root'] } }),
      422103,
      'permissions[0]',
    );
    expectError(await t.api('POST', '/users', { headers: h, body: { username: t.admin.username, password: 'long enough', name: 'X' } }), 409009, 'username');
    expectError(await t.api('POST', '/users', { headers: h, body: { username: 'x.y', password: 12345678, name: 'X' } }), 422102, 'password');
    expect(await queryTestDatabase(t.db.url, "SELECT id FROM identity.users WHERE username = 'x.y'")).toEqual([]);
  });

  it('reads and lists users (cursor pages, q and disabled filters): 400004 malformed id, 404007 unknown', async () => {
    for (const n of ['a', 'b', 'c'])
      await t.api('POST', '/users', { headers: h, body: { username: `list.${n}`, password: 'list password', name: `Lister ${n.toUpperCase()}` } });
    const page1 = await t.api('GET', '/users?limit=2&q=lister', { headers: h });
    expect(page1.body.data.items.map((u: { username: string }) => u.username)).toEqual(['list.c', 'list.b']);
    expect(page1.body.data.has_more).toBe(true);
    const page2 = await t.api('GET', `/users?limit=2&q=lister&cursor=${page1.body.data.next_cursor}`, { headers: h });
    expect(page2.body.data).toMatchObject({ items: [{ username: 'list.a' }], has_more: false, next_cursor: null });
    expect((await t.api('GET', '/users?disabled=true', { headers: h })).body.data.items).toEqual([]);
    const one = page1.body.data.items[0];
    expect((await t.api('GET', `/users/${one.id}`, { headers: h })).body.data).toEqual(one);
    expectError(await t.api('GET', '/users/nope', { headers: h }), 400004, 'user_id');
    expectError(await t.api('GET', '/users/usr_aaaaaaaaaaaaaaaaaaaa', { headers: h }), 404007, 'user_id');
    expectError(await t.api('GET', '/users?limit=0', { headers: h }), 400003, 'limit');
  });

  it('updates with If-Match or version (409004 when stale), clears the phone with null, and disables (next login 401006)', async () => {
    const user = (
      await t.api('POST', '/users', { headers: h, body: { username: 'patch.me', password: 'patch me password', name: 'Patch Me', phone: '13812345678' } })
    ).body.data;
    const renamed = await t.api('PATCH', `/users/${user.id}`, { headers: { ...h, 'if-match': '"1"' }, body: { name: 'Patched', phone: null } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Patched', phone: null, version: 2 });
    expect(renamed.headers.etag).toBe('"2"');
    const stale = await t.api('PATCH', `/users/${user.id}`, { headers: h, body: { name: 'Again', version: 1 } });
    expectError(stale, 409004, 'version');
    expect((await t.api('GET', `/users/${user.id}`, { headers: h })).body.data.name).toBe('Patched');

    expect((await t.api('PATCH', `/users/${user.id}`, { headers: h, body: { disabled: true } })).body.data.disabled).toBe(true);
    expectError(await login('patch.me', 'patch me password'), 401006);
    expect((await t.api('PATCH', `/users/${user.id}`, { headers: h, body: { disabled: false, password: 'a new password for it' } })).body.data.disabled).toBe(
      false,
    );
    expectError(await login('patch.me', 'patch me password'), 401008, 'password');
    expect((await login('patch.me', 'a new password for it')).status).toBe(200);
    const self = (await t.api('GET', '/me', { headers: h })).body.data.id;
    expectError(await t.api('PATCH', `/users/${self}`, { headers: h, body: { disabled: true } }), 422204, 'disabled');
  });

  it('deletes a user: 404007 afterwards, sign-in refused, tokens refused at the next request', async () => {
    const user = (
      await t.api('POST', '/users', {
        headers: h,
        body: { username: 'delete.me', password: 'delete me password', name: 'Delete Me', permissions: ['project:read'] },
      })
    ).body.data;
    const token = (await login('delete.me', 'delete me password')).body.data.access_token;
    const deleted = await t.api('DELETE', `/users/${user.id}`, { headers: h });
    expect(deleted.body.data).toMatchObject({ id: user.id, deleted: true });
    expectError(await t.api('GET', `/users/${user.id}`, { headers: h }), 404007, 'user_id');
    expectError(await t.api('DELETE', `/users/${user.id}`, { headers: h }), 404007, 'user_id');
    expectError(await login('delete.me', 'delete me password'), 401008, 'password');
    expectError(await t.api('GET', '/projects', { headers: { authorization: `Bearer ${token}` } }), 401003, 'Authorization');
  });

  it('needs system:admin (401004) and lets an administrator grant only what they hold', async () => {
    const reader = await t.apiKey(['project:read']);
    expectError(await t.api('GET', '/users', { headers: { 'x-api-key': reader } }), 401004);
    const narrow = await t.apiKey(['system:admin', 'project:read']);
    expectError(
      await t.api('POST', '/users', {
        headers: { 'x-api-key': narrow },
        body: { username: 'too.wide', password: 'too wide password', name: 'W', permissions: ['data:write'] },
      }),
      401004,
      'permissions[0]',
    );
  });
});
