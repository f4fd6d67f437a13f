import { queryTestDatabase, waitUntil } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { projectsEvents } from '../support/projects-events.js';

// Tasks over HTTPS: the status endpoint with its event on JetStream, assignment, the
// paused-project (422302) and overdue (422304) rules, the overdue sweep on the running platform,
// PATCH with If-Match, list filters, and the task:* permissions.
describe('tasks over the API', () => {
  let t: TestPlatform;
  let key: string;
  let projectId: string;
  /** A real user of the tenant: members must be existing users (404007). */
  let worker: string;
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const createTask = async (body: Record<string, unknown> = {}, project = projectId) => {
    const res = await t.api('POST', `/projects/${project}/tasks`, { headers: h(), body: { name: 'Survey round 12', ...body } });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const status = (id: string, body: Record<string, unknown>) => t.api('PUT', `/tasks/${id}/status`, { headers: h(), body });
  const row = async (id: string) => (await queryTestDatabase(t.db.url, 'SELECT status, version, assignee_id FROM projects.tasks WHERE id = $1', [id]))[0];
  const eventsOf = async (id: string) => (await projectsEvents(t)).filter((e) => e.data.task_id === id);

  beforeAll(async () => {
    // A fast overdue sweep, so the running platform flags tasks within the test.
    t = await startTestPlatform({ MP_TASK_OVERDUE_SWEEP_MS: '200' });
    key = await t.apiKey(['project:read', 'project:write', 'task:read', 'task:write']);
    const user = await t.api('POST', '/users', {
      headers: { 'x-api-key': await t.apiKey(['system:admin']) },
      body: { username: 'zhang.wei', password: 'zhang.wei password', name: 'Zhang Wei' },
    });
    expect(user.status).toBe(200);
    worker = user.body.data.id;
    const p = await t.api('POST', '/projects', { headers: h(), body: { name: 'Metro Line 4 tunnel', number: 'ML4' } });
    projectId = p.body.data.id;
    await t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } });
    const added = await t.api('POST', `/projects/${projectId}/members`, {
      headers: h(),
      body: { user_id: worker, role: 'editor', name: 'Zhang Wei', phone: '138 1234 5678' },
    });
    expect(added.status).toBe(200);
  });
  afterAll(() => t?.stop());

  it('creates, assigns, starts and completes a task, with task.status_changed on the stream', async () => {
    const task = await createTask({ priority: 'high', due_at: '2099-05-10T18:00:00+08:00' });
    expect(task).toMatchObject({
      project_id: projectId,
      status: 'pending',
      priority: 'high',
      assignee: null,
      due_at: '2099-05-10T10:00:00.000Z',
      overdue: false,
      version: 1,
    });
    expect(task.id).toMatch(/^tsk_[0-9a-z]{20}$/);
    const assigned = await t.api('POST', `/tasks/${task.id}/assign`, { headers: h(), body: { user_id: worker } });
    expect(assigned.body.data).toMatchObject({ status: 'assigned', assignee: { user_id: worker, name: 'Zhang Wei', phone: '138****5678' }, version: 2 });
    expect((await status(task.id, { status: 'in_progress', remark: 'On site' })).body.data.status).toBe('in_progress');
    const done = await status(task.id, { status: 'completed', remark: 'Survey round 12 finished' });
    expect(done.body.data).toMatchObject({ status: 'completed', completed_at: done.body.data.updated_at, version: 4 });

    const events = await eventsOf(task.id);
    expect(events.map((e) => e.event_type)).toEqual([
      'task.created',
      'task.assigned',
      'task.status_changed',
      'task.status_changed',
      'task.status_changed',
      'task.completed',
    ]);
    const last = events[4]!;
    expect(Object.keys(last.data).sort()).toEqual([
      'changed_at',
      'changed_by',
      'current_status',
      'previous_status',
      'project_id',
      'project_name',
      'remark',
      'task_id',
      'task_name',
    ]);
    expect(last.data).toEqual({
      task_id: task.id,
      task_name: 'Survey round 12',
      project_id: projectId,
      project_name: 'Metro Line 4 tunnel',
      previous_status: 'in_progress',
      current_status: 'completed',
      changed_by: { user_id: expect.stringMatching(/^key_/), name: expect.any(String), phone: '' },
      changed_at: done.body.data.updated_at,
      remark: 'Survey round 12 finished',
    });
    expect(events[5]!.data).toEqual({ ...last.data, completed_at: done.body.data.updated_at });
  });

  it('refuses a move the table forbids with 409005: the task and the stream stay as they were', async () => {
    const task = await createTask();
    await status(task.id, { status: 'cancelled' });
    const before = (await eventsOf(task.id)).length;
    expectError(await status(task.id, { status: 'in_progress' }), 409005, 'status');
    expectError(await t.api('POST', `/tasks/${task.id}/assign`, { headers: h(), body: { user_id: worker } }), 409005, 'status');
    expectError(await t.api('PATCH', `/tasks/${task.id}`, { headers: h(), body: { name: 'Reopen' } }), 409005, 'status');
    expectError(await status(task.id, { status: 'archived' }), 422103, 'status');
    expectError(await status(task.id, { remark: 'no status' }), 422101, 'status');
    expect(await row(task.id)).toEqual({ status: 'cancelled', version: 2, assignee_id: null });
    expect(await eventsOf(task.id)).toHaveLength(before);
  });

  it('refuses a new task in a paused project with 422302', async () => {
    const p = await t.api('POST', '/projects', { headers: h(), body: { name: 'Paused dam', number: 'PD-1' } });
    await t.api('PUT', `/projects/${p.body.data.id}/status`, { headers: h(), body: { status: 'in_progress' } });
    await t.api('PUT', `/projects/${p.body.data.id}/status`, { headers: h(), body: { status: 'paused' } });
    expectError(await t.api('POST', `/projects/${p.body.data.id}/tasks`, { headers: h(), body: { name: 'During the pause' } }), 422302, 'project_id');
    expect(await queryTestDatabase(t.db.url, 'SELECT id FROM projects.tasks WHERE project_id = $1', [p.body.data.id])).toEqual([]);
  });

  it('flags an overdue task once (task.overdue), refuses its status updates with 422304, and accepts them after the deadline moves', async () => {
    const due = new Date(Date.now() + 1500).toISOString();
    const task = await createTask({ name: 'Crack survey', due_at: due, assignee_id: worker });
    const overdue = await waitUntil(
      async () => {
        const found = (await eventsOf(task.id)).filter((e) => e.event_type === 'task.overdue');
        return found.length ? found : null;
      },
      { timeoutMs: 15_000, message: 'no task.overdue on the stream' },
    );
    expect(overdue).toHaveLength(1);
    expect(overdue[0]!.data).toMatchObject({
      task_id: task.id,
      task_name: 'Crack survey',
      project_id: projectId,
      due_at: due,
      status: 'assigned',
      assignee: { user_id: worker, phone: '138****5678' },
    });
    expect((await t.api('GET', `/tasks/${task.id}`, { headers: h() })).body.data.overdue).toBe(true);

    expectError(await status(task.id, { status: 'in_progress' }), 422304, 'status');
    expect(await row(task.id)).toMatchObject({ status: 'assigned', version: 1 });
    const extended = await t.api('PATCH', `/tasks/${task.id}`, {
      headers: h({ 'if-match': '"1"' }),
      body: { due_at: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(extended.body.data).toMatchObject({ overdue: false, version: 2 });
    expect((await status(task.id, { status: 'in_progress' })).body.data.status).toBe('in_progress');
    // Two more sweeps, each proven by a task created past its deadline and flagged: one flagged by a
    // sweep that started after the other's task.overdue was on the stream. Still exactly one
    // task.overdue for the first deadline.
    for (const name of ['Late marker 1', 'Late marker 2']) {
      const marker = await createTask({ name, due_at: new Date(Date.now() - 60_000).toISOString() });
      await waitUntil(async () => (await eventsOf(marker.id)).some((e) => e.event_type === 'task.overdue'), {
        timeoutMs: 15_000,
        message: `no task.overdue for ${name}`,
      });
    }
    expect((await eventsOf(task.id)).filter((e) => e.event_type === 'task.overdue')).toHaveLength(1);
  });

  it('updates with If-Match (409004 when stale), clears with null, deletes, and answers 404002 / 400004', async () => {
    const task = await createTask({ description: 'North portal', due_at: '2099-01-01T00:00:00Z' });
    const got = await t.api('GET', `/tasks/${task.id}`, { headers: h() });
    expect(got.headers.etag).toBe('"1"');
    const patched = await t.api('PATCH', `/tasks/${task.id}`, {
      headers: h({ 'if-match': got.headers.etag as string }),
      body: { description: null, due_at: null, priority: 'urgent' },
    });
    expect(patched.body.data).toMatchObject({ description: null, due_at: null, priority: 'urgent', version: 2 });
    expectError(await t.api('PATCH', `/tasks/${task.id}`, { headers: h({ 'if-match': '"1"' }), body: { name: 'Stale' } }), 409004, 'version');
    expectError(await t.api('PATCH', `/tasks/${task.id}`, { headers: h(), body: { due_at: 'tomorrow' } }), 400004, 'due_at');
    expect((await t.api('DELETE', `/tasks/${task.id}`, { headers: h() })).body.data).toMatchObject({ id: task.id, deleted: true });
    expectError(await t.api('GET', `/tasks/${task.id}`, { headers: h() }), 404002, 'task_id');
    expectError(await t.api('GET', '/tasks/12', { headers: h() }), 400004, 'task_id');
    expectError(await t.api('POST', '/projects/prj_zzzzzzzzzzzzzzzzzzzz/tasks', { headers: h(), body: { name: 'Nowhere' } }), 404001, 'project_id');
  });

  it('assigns only members who can work (422104 non-member, 400004 malformed)', async () => {
    const task = await createTask();
    expectError(await t.api('POST', `/tasks/${task.id}/assign`, { headers: h(), body: { user_id: 'usr_stranger000000000000' } }), 422104, 'user_id');
    expectError(await t.api('POST', `/tasks/${task.id}/assign`, { headers: h(), body: { user_id: 'bob' } }), 400004, 'user_id');
    expectError(await t.api('POST', `/tasks/${task.id}/assign`, { headers: h(), body: {} }), 422101, 'user_id');
    expect(await row(task.id)).toEqual({ status: 'pending', version: 1, assignee_id: null });
  });

  it('filters by status, assignee, overdue and q with cursor pages', async () => {
    const p = (await t.api('POST', '/projects', { headers: h(), body: { name: 'Lists', number: 'LS-1' } })).body.data.id;
    expect((await t.api('POST', `/projects/${p}/members`, { headers: h(), body: { user_id: worker, role: 'editor' } })).status).toBe(200);
    const a = await createTask({ name: 'Alpha levelling', assignee_id: worker }, p);
    const b = await createTask({ name: 'Beta levelling' }, p);
    const c = await createTask({ name: 'Gamma cracks' }, p);
    const ids = async (qs: string) => (await t.api('GET', `/projects/${p}/tasks?${qs}`, { headers: h() })).body.data.items.map((x: { id: string }) => x.id);
    expect(await ids('status=assigned')).toEqual([a.id]);
    expect(await ids(`assignee_id=${worker}`)).toEqual([a.id]);
    expect(await ids('q=levelling')).toEqual([b.id, a.id]);
    expect(await ids('overdue=false')).toEqual([c.id, b.id, a.id]);
    const first = await t.api('GET', `/projects/${p}/tasks?limit=2`, { headers: h() });
    expect(first.body.data).toMatchObject({ has_more: true });
    const rest = await t.api('GET', `/projects/${p}/tasks?limit=2&cursor=${first.body.data.next_cursor}`, { headers: h() });
    expect(rest.body.data).toMatchObject({ items: [{ id: a.id }], next_cursor: null, has_more: false });
    expectError(await t.api('GET', `/projects/${p}/tasks?overdue=maybe`, { headers: h() }), 400001, 'overdue');
    expectError(await t.api('GET', `/projects/${p}/tasks?status=open`, { headers: h() }), 422103, 'status');
  });

  it('needs task:write to change tasks and task:read to read them (401004)', async () => {
    const task = await createTask();
    const projectsOnly = await t.apiKey(['project:read', 'project:write']);
    expectError(await t.api('POST', `/projects/${projectId}/tasks`, { headers: { 'x-api-key': projectsOnly }, body: { name: 'No task permission' } }), 401004);
    expectError(await t.api('PUT', `/tasks/${task.id}/status`, { headers: { 'x-api-key': projectsOnly }, body: { status: 'in_progress' } }), 401004);
    expectError(await t.api('GET', `/tasks/${task.id}`, { headers: { 'x-api-key': projectsOnly } }), 401004);
    expect(await row(task.id)).toEqual({ status: 'pending', version: 1, assignee_id: null });
  });
});
