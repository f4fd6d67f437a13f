import type { CallerContext } from '@mp/grpc';
import { ADMIN, anon, rejection, startTestIdentity, type TestIdentity } from './support.js';

describe('identity: users', () => {
  let t: TestIdentity;
  let admin: CallerContext;
  const base = { name: 'Li Wei', password: 'a long enough password', permissions: ['project:read', 'task:read'], disabled: false };
  const login = (username: string, password = base.password) => t.client.login({ username, password, environment: 'live', clientAddress: '' }, anon());

  beforeAll(async () => {
    t = await startTestIdentity();
    admin = await t.adminContext();
  });
  afterAll(() => t?.stop());
  afterEach(() => t?.clock.reset());

  it('creates a user of the caller tenant with name and phone; the password is stored hashed and works at once', async () => {
    const user = await t.client.createUser({ ...base, username: 'li.wei', phone: '+86 138 1234 5678' }, admin);
    expect(user).toMatchObject({
      username: 'li.wei',
      name: 'Li Wei',
      phone: '+86 138 1234 5678',
      permissions: ['project:read', 'task:read'],
      disabled: false,
      version: 1,
      tenantId: admin.tenantId,
    });
    expect(user.id).toMatch(/^usr_[0-9a-z]{20}$/);
    expect(JSON.stringify(user)).not.toContain(base.password);
    const [row] = await t.sql<{ password_hash: string }>('SELECT password_hash FROM identity.users WHERE id = $1', [user.id]);
    expect(row!.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect((await login('li.wei')).scope).toBe('project:read task:read');
    expect((await t.client.getUser({ id: user.id }, admin)).lastLoginAt).toBeDefined();
  });

  it('validates creation with the offending field and stores nothing when refused', async () => {
    const create = (over: Record<string, unknown>) => rejection(t.client.createUser({ ...base, username: 'v.user', ...over } as never, admin));
    expect(await create({ username: '' })).toMatchObject({ code: '422101', field: 'username' });
    expect(await create({ username: 'bad name!' })).toMatchObject({ code: '422103', field: 'username' });
    expect(await create({ username: ADMIN.username })).toMatchObject({ code: '409009', field: 'username' });
    expect(await create({ password: 'short' })).toMatchObject({ code: '400003', field: 'password' });
    expect(await create({ password: '' })).toMatchObject({ code: '422101', field: 'password' });
    expect(await create({ name: '' })).toMatchObject({ code: '422101', field: 'name' });
    expect(await create({ phone: 'call me' })).toMatchObject({ code: '400004', field: 'phone' });
    expect(await create({ permissions: ['project:read', 'project:delete'] })).toMatchObject({ code: '422103', field: 'permissions[1]' });
    const narrow = await t.adminContext('live', ['system:admin', 'project:read']);
    expect(await rejection(t.client.createUser({ ...base, username: 'v.user' }, narrow))).toMatchObject({ code: '401004', field: 'permissions[1]' });
    expect(await t.sql("SELECT id FROM identity.users WHERE username = 'v.user'")).toEqual([]);
  });

  it('gets and lists only users of the caller tenant: 400004 malformed, 404007 unknown, 403003 another tenant', async () => {
    const user = await t.client.createUser({ ...base, username: 'list.me', name: 'Zhang Min' }, admin);
    expect(await rejection(t.client.getUser({ id: 'nope' }, admin))).toMatchObject({ code: '400004', field: 'user_id' });
    expect(await rejection(t.client.getUser({ id: 'usr_aaaaaaaaaaaaaaaaaaaa' }, admin))).toMatchObject({ code: '404007', field: 'user_id' });
    const other = { ...admin, tenantId: 'ten_otherotherotherothe' };
    const foreign = await rejection(t.client.getUser({ id: user.id }, other));
    expect(foreign).toMatchObject({ code: '403003', field: 'user_id' });
    expect(foreign.detail).not.toContain('Zhang');
    expect((await t.client.listUsers({ page: { limit: 20, cursor: '' } }, other)).items).toEqual([]);
    // users belong to the tenant, not to an environment
    expect((await t.client.getUser({ id: user.id }, { ...admin, environment: 'sandbox' })).id).toBe(user.id);

    const found = await t.client.listUsers({ page: { limit: 20, cursor: '' }, q: 'zhang' }, admin);
    expect(found.items.map((u) => u.id)).toEqual([user.id]);
    const first = await t.client.listUsers({ page: { limit: 1, cursor: '' } }, admin);
    expect(first.items).toHaveLength(1);
    expect(first.page!.hasMore).toBe(true);
    const second = await t.client.listUsers({ page: { limit: 1, cursor: first.page!.nextCursor! } }, admin);
    expect(second.items[0]!.id).not.toBe(first.items[0]!.id);
  });

  it('updates name, phone (or clears it) and permissions with optimistic concurrency (409004 when stale)', async () => {
    const user = await t.client.createUser({ ...base, username: 'edit.me', phone: '13812345678' }, admin);
    const renamed = await t.client.updateUser({ id: user.id, name: 'Li Wei (site B)', expectedVersion: 1, clear: [], unlock: false }, admin);
    expect(renamed).toMatchObject({ name: 'Li Wei (site B)', phone: '13812345678', version: 2 });
    expect(await rejection(t.client.updateUser({ id: user.id, name: 'again', expectedVersion: 1, clear: [], unlock: false }, admin))).toMatchObject({
      code: '409004',
      field: 'version',
    });
    const cleared = await t.client.updateUser({ id: user.id, clear: ['phone'], permissions: { values: ['data:read'] }, unlock: false }, admin);
    expect(cleared.phone).toBeUndefined();
    expect(cleared.permissions).toEqual(['data:read']);
    expect(cleared.version).toBe(3);
    // nothing to change keeps the version
    expect((await t.client.updateUser({ id: user.id, name: 'Li Wei (site B)', clear: [], unlock: false }, admin)).version).toBe(3);
    expect(await rejection(t.client.updateUser({ id: user.id, clear: ['name'], unlock: false }, admin))).toMatchObject({ code: '422103', field: 'clear[0]' });
    // an administrator cannot hand out what they do not hold, but may leave alone what the user has
    const narrow = await t.adminContext('live', ['system:admin', 'data:read']);
    expect(
      await rejection(t.client.updateUser({ id: user.id, permissions: { values: ['data:read', 'data:write'] }, clear: [], unlock: false }, narrow)),
    ).toMatchObject({
      code: '401004',
      field: 'permissions[1]',
    });
  });

  it('disables an account: next login 401006, refresh refused; an administrator cannot disable or delete themselves', async () => {
    const user = await t.client.createUser({ ...base, username: 'to.disable' }, admin);
    const tokens = await login('to.disable');
    const disabled = await t.client.updateUser({ id: user.id, disabled: true, clear: [], unlock: false }, admin);
    expect(disabled.disabled).toBe(true);
    expect(await rejection(login('to.disable'))).toMatchObject({ code: '401006', field: null });
    expect(await rejection(t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'live' }, anon()))).toMatchObject({ code: '401006' });
    expect(await rejection(t.client.updateUser({ id: admin.principalId, disabled: true, clear: [], unlock: false }, admin))).toMatchObject({
      code: '422204',
      field: 'disabled',
    });
    expect(await rejection(t.client.deleteUser({ id: admin.principalId }, admin))).toMatchObject({ code: '422204', field: 'user_id' });
    expect((await t.client.listUsers({ page: { limit: 100, cursor: '' }, disabled: true }, admin)).items.map((u) => u.id)).toEqual([user.id]);
  });

  it('sets a new password (ending the user sessions) and unlocks a locked account', async () => {
    const user = await t.client.createUser({ ...base, username: 'locked.out' }, admin);
    const tokens = await login('locked.out');
    for (let i = 0; i < 5; i++) await rejection(login('locked.out', 'wrong password!'));
    expect(await rejection(login('locked.out'))).toMatchObject({ code: '401007' });
    expect((await t.client.getUser({ id: user.id }, admin)).lockedUntil).toBeDefined();
    const unlocked = await t.client.updateUser({ id: user.id, unlock: true, password: 'a brand new password', clear: [] }, admin);
    expect(unlocked.lockedUntil).toBeUndefined();
    expect(await rejection(t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'live' }, anon()))).toMatchObject({ code: '401003' });
    expect(await rejection(login('locked.out'))).toMatchObject({ code: '401008' });
    expect((await login('locked.out', 'a brand new password')).accessToken).toBeTruthy();
  });

  it('deletes a user (404007 afterwards; its sessions go with it) and frees the username', async () => {
    const user = await t.client.createUser({ ...base, username: 'leaving' }, admin);
    const tokens = await login('leaving');
    const deleted = await t.client.deleteUser({ id: user.id, expectedVersion: 1 }, admin);
    expect(deleted.id).toBe(user.id);
    expect(await rejection(t.client.getUser({ id: user.id }, admin))).toMatchObject({ code: '404007' });
    expect(await rejection(t.client.deleteUser({ id: user.id }, admin))).toMatchObject({ code: '404007' });
    expect(await rejection(login('leaving'))).toMatchObject({ code: '401008' });
    expect(await rejection(t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'live' }, anon()))).toMatchObject({ code: '401003' });
    expect(await t.sql('SELECT id FROM identity.sessions WHERE user_id = $1', [user.id])).toEqual([]);
    const again = await t.client.createUser({ ...base, username: 'leaving' }, admin);
    expect(again.id).not.toBe(user.id);
  });

  it('gives other services the display data of users of the caller tenant, with the phone masked', async () => {
    const a = await t.client.createUser({ ...base, username: 'profile.a', name: 'Wang Fang', phone: '13812345678' }, admin);
    const b = await t.client.createUser({ ...base, username: 'profile.b', name: 'Chen Jie' }, admin);
    const res = await t.client.getUserProfiles({ ids: [b.id, a.id, 'usr_aaaaaaaaaaaaaaaaaaaa', b.id] }, admin);
    expect(res.items).toEqual([
      { id: b.id, username: 'profile.b', name: 'Chen Jie', phoneMasked: '', disabled: false },
      { id: a.id, username: 'profile.a', name: 'Wang Fang', phoneMasked: '138****5678', disabled: false },
    ]);
    expect((await t.client.getUserProfiles({ ids: [a.id] }, { ...admin, tenantId: 'ten_otherotherotherothe' })).items).toEqual([]);
  });

  it('tells the caller who they are (GET /me): a user with profile, or an API key, with tenant and plan', async () => {
    const me = await t.client.getMe({}, admin);
    expect(me).toMatchObject({
      principalType: 'user',
      id: admin.principalId,
      name: 'Administrator',
      tenantName: 'Default tenant',
      environment: 'live',
      plan: { name: 'standard' },
    });
    expect(me.user).toMatchObject({ username: ADMIN.username });
    const key = await t.client.createApiKey({ name: 'whoami key', permissions: ['project:read'] }, admin);
    const principal = await t.client.authenticateApiKey({ key: key.key, environment: 'live' }, anon());
    const keyMe = await t.client.getMe({}, { ...admin, principalId: principal.principalId, principalType: 'api_key', permissions: principal.permissions });
    expect(keyMe).toMatchObject({ principalType: 'api_key', id: key.apiKey!.id, name: 'whoami key', permissions: ['project:read'] });
    expect(keyMe.user).toBeUndefined();
  });
});
