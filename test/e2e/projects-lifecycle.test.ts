import { queryTestDatabase } from '@mp/testing';
import { createTenant, identityClient } from '../support/identity.js';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { projectsEvents } from '../support/projects-events.js';

// Projects over HTTPS: PATCH with If-Match/version, DELETE, PUT status with the transition table,
// the archived rule, members, Idempotency-Key — each checked in the envelope, the stored row and
// the events on JetStream.
describe('projects: lifecycle over the API', () => {
  let t: TestPlatform;
  let key: string;
  let adminKey: string;
  let seq = 0;
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const create = async (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const res = await t.api('POST', '/projects', { headers: h(headers), body: { name: 'Metro Line 4 tunnel', number: `PL-${++seq}`, ...body } });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const row = async (id: string) => (await queryTestDatabase(t.db.url, 'SELECT name, status, version FROM projects.projects WHERE id = $1', [id]))[0];
  const eventsOf = async (id: string) => (await projectsEvents(t)).filter((e) => e.data.project_id === id);
  /** A real user of the tenant (members must be existing users, 404007). */
  const makeUser = async (username: string, name: string): Promise<string> => {
    const res = await t.api('POST', '/users', { headers: { 'x-api-key': adminKey }, body: { username, password: `${username} password`, name } });
    expect(res.status).toBe(200);
    return res.body.data.id;
  };
  const memberRows = (userId: string) => queryTestDatabase(t.db.url, 'SELECT project_id, name FROM projects.project_members WHERE user_id = $1', [userId]);

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write', 'task:read', 'task:write']);
    adminKey = await t.apiKey(['system:admin']);
  });
  afterAll(() => t?.stop());

  it('returns the version as an ETag and takes it back in If-Match; a stale one is 409004 and changes nothing', async () => {
    const p = await create({ description: 'Shield section', bounds: { min_x: 0, max_x: 1000, min_y: 0, max_y: 1000, min_z: -50, max_z: 50 } });
    expect(p).toMatchObject({
      status: 'not_started',
      version: 1,
      bounds: { min_x: 0, max_x: 1000, min_y: 0, max_y: 1000, min_z: -50, max_z: 50 },
      created_by: expect.stringMatching(/^key_/),
    });
    const got = await t.api('GET', `/projects/${p.id}`, { headers: h() });
    expect(got.headers.etag).toBe('"1"');
    const patched = await t.api('PATCH', `/projects/${p.id}`, {
      headers: h({ 'if-match': '"1"' }),
      body: { name: 'Metro Line 4 shield', description: null, bounds: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.headers.etag).toBe('"2"');
    expect(patched.body.data).toMatchObject({ name: 'Metro Line 4 shield', description: null, bounds: null, version: 2 });
    expectError(await t.api('PATCH', `/projects/${p.id}`, { headers: h({ 'if-match': '"1"' }), body: { name: 'Lost update' } }), 409004, 'version');
    expectError(await t.api('PATCH', `/projects/${p.id}`, { headers: h(), body: { name: 'Lost update', version: 1 } }), 409004, 'version');
    expectError(await t.api('PATCH', `/projects/${p.id}`, { headers: h({ 'if-match': '"2"' }), body: { version: 1 } }), 422204, 'version');
    expectError(await t.api('PATCH', `/projects/${p.id}`, { headers: h({ 'if-match': 'yesterday' }), body: {} }), 400004, 'If-Match');
    expect(await row(p.id)).toEqual({ name: 'Metro Line 4 shield', status: 'not_started', version: 2 });
  });

  it('maps body problems to the catalogue: 422102 wrong type, 422101 missing bounds limit, 422204 inverted bounds', async () => {
    const p = await create();
    expectError(await t.api('PATCH', `/projects/${p.id}`, { headers: h(), body: { name: 12 } }), 422102, 'name');
    expectError(
      await t.api('PATCH', `/projects/${p.id}`, { headers: h(), body: { bounds: { min_x: 0, max_x: 1, min_y: 0, max_y: 1, min_z: 0 } } }),
      422101,
      'bounds.max_z',
    );
    expectError(
      await t.api('POST', '/projects', {
        headers: h(),
        body: { name: 'Inverted', number: 'INV-1', bounds: { min_x: 5, max_x: 1, min_y: 0, max_y: 1, min_z: 0, max_z: 1 } },
      }),
      422204,
      'bounds.max_x',
    );
    expect(await queryTestDatabase(t.db.url, "SELECT id FROM projects.projects WHERE number = 'INV-1'")).toEqual([]);
  });

  it('moves a project through its statuses with one event per change, and refuses forbidden moves with 409008 and no event', async () => {
    const p = await create();
    const put = (status: string, extra: Record<string, unknown> = {}) => t.api('PUT', `/projects/${p.id}/status`, { headers: h(), body: { status, ...extra } });
    expect((await put('in_progress', { remark: 'Baseline done' })).body.data).toMatchObject({ status: 'in_progress', version: 2 });
    expectError(await put('not_started'), 409008, 'status');
    expectError(await put('archived'), 409008, 'status');
    expectError(await put('closed'), 422103, 'status');
    expectError(await put('paused', { version: 1 }), 409004, 'version');
    expect(await row(p.id)).toMatchObject({ status: 'in_progress', version: 2 });
    expect((await put('paused')).body.data.status).toBe('paused');
    expect((await put('completed')).body.data.status).toBe('completed');
    const archived = await put('archived', { remark: 'Handed over' });
    expect(archived.body.data).toMatchObject({ status: 'archived', version: 5 });

    const events = await eventsOf(p.id);
    expect(events.map((e) => `${e.event_type}${e.data.current_status ? ` ${e.data.previous_status}→${e.data.current_status}` : ''}`)).toEqual([
      'project.created',
      'project.status_changed not_started→in_progress',
      'project.status_changed in_progress→paused',
      'project.status_changed paused→completed',
      'project.completed paused→completed',
      'project.status_changed completed→archived',
      'project.completed completed→archived',
    ]);
    const last = events[events.length - 1]!;
    expect(last.data).toEqual({
      project_id: p.id,
      project_name: 'Metro Line 4 tunnel',
      previous_status: 'completed',
      current_status: 'archived',
      changed_by: { user_id: expect.stringMatching(/^key_/), name: expect.any(String), phone: '' },
      changed_at: archived.body.data.updated_at,
      remark: 'Handed over',
    });
  });

  it('refuses every change of an archived project with 422301 and leaves no trace', async () => {
    const p = await create();
    await t.api('PUT', `/projects/${p.id}/status`, { headers: h(), body: { status: 'archived' } });
    const before = (await eventsOf(p.id)).length;
    expectError(await t.api('PATCH', `/projects/${p.id}`, { headers: h(), body: { name: 'Back from the archive' } }), 422301, 'project_id');
    expectError(await t.api('PUT', `/projects/${p.id}/status`, { headers: h(), body: { status: 'in_progress' } }), 422301, 'project_id');
    expectError(await t.api('DELETE', `/projects/${p.id}`, { headers: h() }), 422301, 'project_id');
    expectError(await t.api('POST', `/projects/${p.id}/tasks`, { headers: h(), body: { name: 'Late survey' } }), 422301, 'project_id');
    expect(await row(p.id)).toEqual({ name: 'Metro Line 4 tunnel', status: 'archived', version: 2 });
    expect(await eventsOf(p.id)).toHaveLength(before);
  });

  it('deletes a project (If-Match checked) and then answers 404001', async () => {
    const p = await create();
    expectError(await t.api('DELETE', `/projects/${p.id}`, { headers: h({ 'if-match': '"3"' }) }), 409004, 'version');
    const del = await t.api('DELETE', `/projects/${p.id}`, { headers: h({ 'if-match': '"1"' }) });
    expect(del.body.data).toMatchObject({ id: p.id, deleted: true });
    expectError(await t.api('GET', `/projects/${p.id}`, { headers: h() }), 404001, 'project_id');
    expectError(await t.api('PATCH', `/projects/${p.id}`, { headers: h(), body: { name: 'Ghost' } }), 404001, 'project_id');
  });

  it('filters the list by status and q', async () => {
    const a = await create({ name: 'Filter quay wall' });
    await create({ name: 'Filter quay apron' });
    await t.api('PUT', `/projects/${a.id}/status`, { headers: h(), body: { status: 'in_progress' } });
    const res = await t.api('GET', '/projects?status=in_progress&q=quay', { headers: h() });
    expect(res.body.data.items.map((p: { id: string }) => p.id)).toEqual([a.id]);
    expectError(await t.api('GET', '/projects?status=running', { headers: h() }), 422103, 'status');
  });

  it('replays a create with the same Idempotency-Key and body; another body is 409006', async () => {
    const headers = { 'idempotency-key': 'b8e2d7f4-1a6c-4c39-8f51-0e9a3d2c7b64' };
    const body = { name: 'North slope', number: 'IDEM-1' };
    const first = await t.api('POST', '/projects', { headers: h(headers), body });
    const again = await t.api('POST', '/projects', { headers: h(headers), body });
    expect(again.body.data).toEqual(first.body.data);
    expectError(await t.api('POST', '/projects', { headers: h(headers), body: { ...body, number: 'IDEM-2' } }), 409006, 'Idempotency-Key');
    expect(await queryTestDatabase(t.db.url, "SELECT number FROM projects.projects WHERE number LIKE 'IDEM-%'")).toEqual([{ number: 'IDEM-1' }]);
    expect((await eventsOf(first.body.data.id)).filter((e) => e.event_type === 'project.created')).toHaveLength(1);
  });

  it('manages members: add with a masked phone, change the role, list, remove, 404007 when not a member', async () => {
    const p = await create();
    const userId = await makeUser('zhang.wei', 'Wei Zhang');
    const added = await t.api('POST', `/projects/${p.id}/members`, {
      headers: h(),
      body: { user_id: userId, role: 'viewer', name: 'Zhang Wei', phone: '13812345678' },
    });
    expect(added.body.data).toMatchObject({ project_id: p.id, user_id: userId, role: 'viewer', name: 'Zhang Wei', phone: '138****5678' });
    // A role change without a name keeps the member's name (the profile name is only a default).
    expect((await t.api('POST', `/projects/${p.id}/members`, { headers: h(), body: { user_id: userId, role: 'editor' } })).body.data).toMatchObject({
      role: 'editor',
      name: 'Zhang Wei',
      phone: '138****5678',
    });
    const list = await t.api('GET', `/projects/${p.id}/members?role=editor`, { headers: h() });
    expect(list.body.data).toMatchObject({ items: [{ user_id: userId, role: 'editor' }], next_cursor: null, has_more: false });
    expectError(await t.api('POST', `/projects/${p.id}/members`, { headers: h(), body: { user_id: userId, role: 'boss' } }), 422103, 'role');
    expectError(await t.api('POST', `/projects/${p.id}/members`, { headers: h(), body: { role: 'viewer' } }), 422101, 'user_id');
    expect((await t.api('DELETE', `/projects/${p.id}/members/${userId}`, { headers: h() })).body.data).toMatchObject({ user_id: userId, deleted: true });
    expectError(await t.api('DELETE', `/projects/${p.id}/members/${userId}`, { headers: h() }), 404007, 'user_id');
  });

  it('adds only existing users of the tenant (404007, nothing stored), named after their profile unless a name is sent', async () => {
    const p = await create();
    const unknown = 'usr_0123456789abcdefghij';
    const refused = await t.api('POST', `/projects/${p.id}/members`, { headers: h(), body: { user_id: unknown, role: 'viewer', name: 'Ghost' } });
    expectError(refused, 404007, 'user_id');
    expect(refused.body.data.suggestion).toContain('GET /v3/users');
    expect(await memberRows(unknown)).toEqual([]);
    // An unknown project is still reported as such, before the user.
    expectError(
      await t.api('POST', '/projects/prj_zzzzzzzzzzzzzzzzzzzz/members', { headers: h(), body: { user_id: unknown, role: 'viewer' } }),
      404001,
      'project_id',
    );

    // A user of another tenant does not exist for this one.
    const id = identityClient(t);
    try {
      const other = await createTenant(id);
      expectError(await t.api('POST', `/projects/${p.id}/members`, { headers: h(), body: { user_id: other.adminId, role: 'viewer' } }), 404007, 'user_id');
      expect(await memberRows(other.adminId)).toEqual([]);
    } finally {
      id.close();
    }

    // project:write alone suffices: the identity look-up needs no user permission.
    const writeOnly = await t.apiKey(['project:write']);
    const liNa = await makeUser('li.na', 'Li Na');
    const added = await t.api('POST', `/projects/${p.id}/members`, { headers: { 'x-api-key': writeOnly }, body: { user_id: liNa, role: 'viewer' } });
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({ user_id: liNa, role: 'viewer', name: 'Li Na', phone: null });
    const wangFang = await makeUser('wang.fang', 'Wang Fang');
    await t.api('POST', `/projects/${p.id}/members`, { headers: h(), body: { user_id: wangFang, role: 'editor', name: 'Site lead Wang' } });
    expect(await memberRows(liNa)).toEqual([{ project_id: p.id, name: 'Li Na' }]);
    expect(await memberRows(wangFang)).toEqual([{ project_id: p.id, name: 'Site lead Wang' }]);
  });

  it('needs project:write for changes (401004) and project:read for reading', async () => {
    const p = await create();
    const readOnly = await t.apiKey(['project:read']);
    const none = await t.apiKey(['task:read']);
    expectError(await t.api('PATCH', `/projects/${p.id}`, { headers: { 'x-api-key': readOnly }, body: { name: 'Nope' } }), 401004);
    expectError(await t.api('PUT', `/projects/${p.id}/status`, { headers: { 'x-api-key': readOnly }, body: { status: 'in_progress' } }), 401004);
    expectError(
      await t.api('POST', `/projects/${p.id}/members`, { headers: { 'x-api-key': readOnly }, body: { user_id: 'usr_0123456789abcdefghij', role: 'viewer' } }),
      401004,
    );
    expectError(await t.api('GET', `/projects/${p.id}/members`, { headers: { 'x-api-key': none } }), 401004);
    expect((await t.api('GET', `/projects/${p.id}`, { headers: { 'x-api-key': readOnly } })).status).toBe(200);
    expect(await row(p.id)).toMatchObject({ status: 'not_started', version: 1 });
  });
});
