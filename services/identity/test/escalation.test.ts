import { decodeJwt } from 'jose';
import type { CallerContext } from '@mp/grpc';
import { ALL_PERMISSIONS } from '../src/permissions.js';
import { anon, rejection, startTestIdentity, type TestIdentity } from './support.js';

/**
 * A principal never grants or reaches more than it holds (ADR 0019): a narrow administrator
 * (system:admin alone) can neither change, unlock, disable nor delete a wider user, nor roll or
 * revoke a wider key, nor widen itself; and nothing changes when it tries.
 */
describe('identity: no principal reaches more than it holds', () => {
  let t: TestIdentity;
  let admin: CallerContext;
  let narrow: CallerContext;
  const password = 'the wide user password';
  const login = (username: string, pw = password) => t.client.login({ username, password: pw, environment: 'live', clientAddress: '' }, anon());
  const userRow = (id: string) =>
    t.sql<{ password_hash: string; permissions: string[]; disabled: boolean; version: number; name: string }>(
      'SELECT password_hash, permissions, disabled, version, name FROM identity.users WHERE id = $1',
      [id],
    );

  beforeAll(async () => {
    t = await startTestIdentity();
    admin = await t.adminContext();
    const narrowUser = await t.client.createUser(
      { username: 'narrow.admin', password: 'narrow admin password', name: 'Narrow', permissions: ['system:admin'], disabled: false },
      admin,
    );
    narrow = { ...admin, principalId: narrowUser.id, permissions: ['system:admin'] };
  });
  afterAll(() => t?.stop());

  it('refuses every change and the deletion of a wider user with 401004 on user_id, and changes nothing', async () => {
    const wide = await t.client.createUser({ username: 'wide.user', password, name: 'Wide', permissions: [...ALL_PERMISSIONS], disabled: false }, admin);
    const [before] = await userRow(wide.id);
    const attempts = [
      t.client.updateUser({ id: wide.id, password: 'taken over password', clear: [], unlock: false }, narrow),
      t.client.updateUser({ id: wide.id, disabled: true, clear: [], unlock: false }, narrow),
      t.client.updateUser({ id: wide.id, permissions: { values: ['system:admin'] }, clear: [], unlock: false }, narrow),
      t.client.updateUser({ id: wide.id, name: 'Renamed', clear: [], unlock: false }, narrow),
      t.client.updateUser({ id: wide.id, clear: [], unlock: true }, narrow),
      t.client.deleteUser({ id: wide.id }, narrow),
    ];
    for (const attempt of attempts) {
      const err = await rejection(attempt);
      expect(err).toMatchObject({ code: '401004', field: 'user_id' });
      expect(err.detail).toContain('project:read');
    }
    expect(await userRow(wide.id)).toEqual([before]);
    expect((await login('wide.user')).scope.split(' ').sort()).toEqual([...ALL_PERMISSIONS].sort());
  });

  it('lets the narrow administrator manage users within its own permissions', async () => {
    const peer = await t.client.createUser({ username: 'peer.user', password, name: 'Peer', permissions: ['system:admin'], disabled: false }, narrow);
    const changed = await t.client.updateUser({ id: peer.id, name: 'Peer Two', password: 'a new peer password', clear: [], unlock: false }, narrow);
    expect(changed).toMatchObject({ name: 'Peer Two', version: 2 });
    expect((await t.client.deleteUser({ id: peer.id }, narrow)).id).toBe(peer.id);
  });

  it('refuses to widen a user, itself included, or to create a wider user (401004 on the permission)', async () => {
    expect(
      await rejection(
        t.client.updateUser({ id: narrow.principalId, permissions: { values: ['system:admin', 'data:write'] }, clear: [], unlock: false }, narrow),
      ),
    ).toMatchObject({ code: '401004', field: 'permissions[1]' });
    expect(
      await rejection(
        t.client.createUser({ username: 'made.wide', password, name: 'Made', permissions: ['system:admin', 'data:read'], disabled: false }, narrow),
      ),
    ).toMatchObject({ code: '401004', field: 'permissions[1]' });
    const [self] = await userRow(narrow.principalId);
    expect(self).toMatchObject({ permissions: ['system:admin'], version: 1 });
    expect(await t.sql("SELECT id FROM identity.users WHERE username = 'made.wide'")).toEqual([]);
  });

  it('refuses a caller whose token carries less than its own account (an OAuth scope) to change that account', async () => {
    const both = await t.client.createUser(
      { username: 'scoped.admin', password, name: 'Scoped', permissions: ['system:admin', 'data:read'], disabled: false },
      admin,
    );
    const scoped = { ...admin, principalId: both.id, permissions: ['system:admin'] };
    expect(await rejection(t.client.updateUser({ id: both.id, password: 'changed by a narrow token', clear: [], unlock: false }, scoped))).toMatchObject({
      code: '401004',
      field: 'user_id',
    });
    expect((await login('scoped.admin')).accessToken).toBeTruthy();
  });

  it('refuses to roll or revoke a wider API key with 401004 on key_id; the key keeps its value', async () => {
    const wide = await t.client.createApiKey({ name: 'wide key', permissions: [...ALL_PERMISSIONS] }, admin);
    const id = wide.apiKey!.id;
    const rowOf = () => t.sql('SELECT key_hash, revoked_at, rolled_at FROM identity.api_keys WHERE id = $1', [id]);
    const [before] = await rowOf();
    expect(await rejection(t.client.rollApiKey({ id, gracePeriodSeconds: 0 }, narrow))).toMatchObject({ code: '401004', field: 'key_id' });
    expect(await rejection(t.client.revokeApiKey({ id }, narrow))).toMatchObject({ code: '401004', field: 'key_id' });
    expect(await rowOf()).toEqual([before]);
    expect((await t.client.authenticateApiKey({ key: wide.key, environment: 'live' }, anon())).permissions).toHaveLength(ALL_PERMISSIONS.length);

    const own = await t.client.createApiKey({ name: 'narrow key', permissions: ['system:admin'] }, narrow);
    expect((await t.client.rollApiKey({ id: own.apiKey!.id, gracePeriodSeconds: 0 }, narrow)).key).not.toBe(own.key);
    expect((await t.client.revokeApiKey({ id: own.apiKey!.id }, narrow)).revokedAt).toBeTruthy();
  });

  it('ends every session of a user whose password an administrator changed', async () => {
    const user = await t.client.createUser({ username: 'pw.changed', password, name: 'Changed', permissions: ['system:admin'], disabled: false }, admin);
    const tokens = await login('pw.changed');
    await t.client.updateUser({ id: user.id, password: 'set by the administrator', clear: [], unlock: false }, narrow);
    expect(await rejection(t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'live' }, anon()))).toMatchObject({ code: '401003' });
    expect(await t.sql('SELECT id FROM identity.sessions WHERE user_id = $1 AND revoked_at IS NULL', [user.id])).toEqual([]);
    // the access token is refused at its next request: the gateway asks CheckSession on every one
    const claims = decodeJwt(tokens.accessToken) as { sid: string; sub: string; tid: string; scope: string };
    const check = t.client.checkSession(
      { sessionId: claims.sid, userId: claims.sub, tenantId: claims.tid, environment: 'live', scope: claims.scope.split(' ') },
      anon(),
    );
    expect(await rejection(check)).toMatchObject({ code: '401003', field: 'Authorization' });
    expect(await rejection(login('pw.changed'))).toMatchObject({ code: '401008' });
  });
});
