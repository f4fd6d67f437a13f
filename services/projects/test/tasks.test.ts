import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { TASK_STATUSES, TASK_TRANSITIONS, type TaskStatus } from '../src/transitions.js';
import { expectRefused, startTestProjects, type TestProjects } from './support/harness.js';

// Tasks: the status transition table walked move by move, the task.status_changed payload,
// assignment, the paused-project and overdue rules, updates with optimistic concurrency, lists.
describe('tasks', () => {
  let t: TestProjects;
  let project: projects.Project;
  let lead: CallerContext;
  const worker = { id: newId('user'), name: 'Zhang Wei', phone: '13812345678' };
  const viewerId = newId('user');
  const stored = async (id: string) =>
    (
      await t.sql<{ status: string; version: number; assignee_id: string | null }>('SELECT status, version, assignee_id FROM projects.tasks WHERE id = $1', [
        id,
      ])
    )[0];
  const move = (id: string, status: string, ctx: CallerContext = lead, remark?: string) =>
    t.client.changeTaskStatus({ id, status, ...(remark !== undefined ? { remark } : {}) }, ctx);
  const create = (over: Partial<projects.CreateTaskRequest> = {}, ctx: CallerContext = lead) =>
    t.client.createTask({ projectId: project.id, name: 'Survey round', ...over }, ctx);
  const patch = (req: Omit<projects.UpdateTaskRequest, 'clear'> & { clear?: string[] }) => t.client.updateTask({ clear: [], ...req }, lead);

  beforeAll(async () => {
    t = await startTestProjects();
    lead = t.user();
    project = await t.client.createProject({ name: 'Metro Line 4', number: 'ML4' }, lead);
    await t.client.addMember({ projectId: project.id, userId: lead.principalId, role: 'owner', name: 'Li Na', phone: '13987654321' }, lead);
    await t.client.addMember({ projectId: project.id, userId: worker.id, role: 'editor', name: worker.name, phone: worker.phone }, lead);
    await t.client.addMember({ projectId: project.id, userId: viewerId, role: 'viewer' }, lead);
    await t.client.changeProjectStatus({ id: project.id, status: 'in_progress' }, lead);
  });
  afterAll(() => t?.stop());

  it('publishes this transition table', () => {
    expect(TASK_TRANSITIONS).toEqual({
      pending: ['in_progress', 'cancelled'],
      assigned: ['pending', 'in_progress', 'cancelled'],
      in_progress: ['assigned', 'completed', 'cancelled'],
      completed: [],
      cancelled: [],
    });
  });

  it('walks every move: allowed ones change the status and raise their events once, refused ones are 409005 and change nothing', async () => {
    // Every task but the pending ones starts assigned to the worker; then the shortest path.
    const PATH: Record<TaskStatus, TaskStatus[]> = {
      pending: [],
      assigned: [],
      in_progress: ['in_progress'],
      completed: ['in_progress', 'completed'],
      cancelled: ['cancelled'],
    };
    const cases: { from: TaskStatus; to: TaskStatus; id: string; allowed: boolean; version: number }[] = [];
    for (const from of TASK_STATUSES) {
      for (const to of TASK_STATUSES) {
        const task = await create({ name: `${from} → ${to}`, ...(from === 'pending' ? {} : { assigneeId: worker.id }) });
        for (const s of PATH[from]) await move(task.id, s);
        cases.push({ from, to, id: task.id, allowed: TASK_TRANSITIONS[from].includes(to), version: PATH[from].length + 1 });
      }
    }
    for (const c of cases) {
      if (c.allowed) {
        const task = await move(c.id, c.to);
        expect({ from: c.from, status: task.status, version: task.version }).toEqual({ from: c.from, status: c.to, version: c.version + 1 });
      } else {
        await expectRefused(move(c.id, c.to), '409005', 'status');
        expect(await stored(c.id)).toMatchObject({ status: c.from, version: c.version });
      }
    }
    const events = await t.events();
    for (const c of cases) {
      const expected = c.from === 'pending' ? ['task.created'] : ['task.created', 'task.assigned'];
      let previous: string = c.from === 'pending' ? 'pending' : 'assigned';
      for (const s of c.allowed ? [...PATH[c.from], c.to] : PATH[c.from]) {
        expected.push(`task.status_changed ${previous}→${s}`);
        if (s === 'completed') expected.push(`task.completed ${previous}→${s}`);
        previous = s;
      }
      const got = events
        .filter((e) => e.data.task_id === c.id)
        .map((e) => (e.data.current_status ? `${e.event_type} ${e.data.previous_status}→${e.data.current_status}` : e.event_type));
      expect({ from: c.from, to: c.to, events: got }).toEqual({ from: c.from, to: c.to, events: expected });
    }
  });

  it('raises task.status_changed with exactly its fields, and task.completed', async () => {
    const task = await create({ name: 'Crown settlement round 12', assigneeId: worker.id });
    const me: CallerContext = t.user(worker.id);
    await move(task.id, 'in_progress', me, 'On site');
    const done = await move(task.id, 'completed', me);
    const events = (await t.events()).filter((e) => e.data.task_id === task.id);
    expect(events.map((e) => e.event_type)).toEqual(['task.created', 'task.assigned', 'task.status_changed', 'task.status_changed', 'task.completed']);
    const changed = events[3]!.data;
    expect(Object.keys(changed).sort()).toEqual([
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
    expect(changed).toEqual({
      task_id: task.id,
      task_name: 'Crown settlement round 12',
      project_id: project.id,
      project_name: 'Metro Line 4',
      previous_status: 'in_progress',
      current_status: 'completed',
      changed_by: { user_id: worker.id, name: 'Zhang Wei', phone: '138****5678' },
      changed_at: done.updatedAt,
      remark: '',
    });
    expect(events[2]!.data.remark).toBe('On site');
    expect(events[4]!.data).toEqual({ ...changed, completed_at: done.updatedAt });
    expect(done.completedAt).toBe(done.updatedAt);
    expect(new Date(done.updatedAt).toISOString()).toBe(done.updatedAt);
  });

  it('raises task.created with the task, its assignee and its creator', async () => {
    const task = await create({ name: 'Inclinometer reading', priority: 'high', dueAt: '2026-06-01T18:00:00+08:00', assigneeId: worker.id });
    expect(task).toMatchObject({
      status: 'assigned',
      priority: 'high',
      dueAt: '2026-06-01T10:00:00.000Z',
      overdue: false,
      assignee: { userId: worker.id, name: 'Zhang Wei', phone: '138****5678' },
    });
    const [created, assigned] = (await t.events()).filter((e) => e.data.task_id === task.id);
    expect(created!.data).toEqual({
      task_id: task.id,
      task_name: 'Inclinometer reading',
      project_id: project.id,
      project_name: 'Metro Line 4',
      status: 'assigned',
      priority: 'high',
      due_at: '2026-06-01T10:00:00.000Z',
      assignee: { user_id: worker.id, name: 'Zhang Wei', phone: '138****5678' },
      created_by: { user_id: lead.principalId, name: 'Li Na', phone: '139****4321' },
      created_at: task.createdAt,
    });
    expect(assigned!.data).toMatchObject({ task_id: task.id, assignee: { user_id: worker.id }, previous_assignee: null, status: 'assigned' });
  });

  it('hands a task back: assigned → pending clears the assignee; in_progress → assigned without one is 422204', async () => {
    const task = await create({ assigneeId: worker.id });
    const back = await move(task.id, 'pending');
    expect(back.assignee).toBeUndefined();
    expect(await stored(task.id)).toMatchObject({ status: 'pending', assignee_id: null });
    await move(task.id, 'in_progress');
    await expectRefused(move(task.id, 'assigned'), '422204', 'status');
    expect(await stored(task.id)).toMatchObject({ status: 'in_progress', version: 3 });
  });

  describe('assignment', () => {
    it('assigns a pending task (task.assigned and task.status_changed) and re-assigns a started one (task.assigned only)', async () => {
      const other = newId('user');
      await t.client.addMember({ projectId: project.id, userId: other, role: 'editor', name: 'Chen Jie' }, lead);
      const task = await create();
      const assigned = await t.client.assignTask({ id: task.id, userId: worker.id, expectedVersion: 1 }, lead);
      expect(assigned).toMatchObject({ status: 'assigned', version: 2, assignee: { userId: worker.id, name: 'Zhang Wei', phone: '138****5678' } });
      await move(task.id, 'in_progress');
      const moved = await t.client.assignTask({ id: task.id, userId: other }, lead);
      expect(moved).toMatchObject({ status: 'in_progress', version: 4, assignee: { userId: other, name: 'Chen Jie', phone: '' } });
      // The same assignee again is no change: no version bump, no event.
      expect((await t.client.assignTask({ id: task.id, userId: other }, lead)).version).toBe(4);
      const events = (await t.events()).filter((e) => e.data.task_id === task.id);
      expect(events.map((e) => e.event_type)).toEqual(['task.created', 'task.assigned', 'task.status_changed', 'task.status_changed', 'task.assigned']);
      expect(events[1]!.data).toEqual({
        task_id: task.id,
        task_name: 'Survey round',
        project_id: project.id,
        project_name: 'Metro Line 4',
        status: 'assigned',
        assignee: { user_id: worker.id, name: 'Zhang Wei', phone: '138****5678' },
        previous_assignee: null,
        assigned_by: { user_id: lead.principalId, name: 'Li Na', phone: '139****4321' },
        assigned_at: assigned.updatedAt,
      });
      expect(events[2]!.data).toMatchObject({ previous_status: 'pending', current_status: 'assigned', remark: '' });
      expect(events[4]!.data).toMatchObject({
        status: 'in_progress',
        assignee: { user_id: other },
        previous_assignee: { user_id: worker.id, name: 'Zhang Wei' },
      });
    });

    it('refuses non-members (422104), viewers (422204), closed tasks (409005), bad ids (400004) and stale versions (409004)', async () => {
      const task = await create();
      const before = (await t.events()).length;
      await expectRefused(t.client.assignTask({ id: task.id, userId: newId('user') }, lead), '422104', 'user_id');
      await expectRefused(t.client.assignTask({ id: task.id, userId: viewerId }, lead), '422204', 'user_id');
      await expectRefused(t.client.assignTask({ id: task.id, userId: 'usr_1' }, lead), '400004', 'user_id');
      await expectRefused(t.client.assignTask({ id: task.id, userId: worker.id, expectedVersion: 9 }, lead), '409004', 'version');
      await expectRefused(t.client.assignTask({ id: 'tsk_zzzzzzzzzzzzzzzzzzzz', userId: worker.id }, lead), '404002', 'task_id');
      await expectRefused(create({ assigneeId: newId('user') }), '422104', 'assignee_id');
      await move(task.id, 'cancelled');
      await expectRefused(t.client.assignTask({ id: task.id, userId: worker.id }, lead), '409005', 'status');
      expect(await stored(task.id)).toMatchObject({ status: 'cancelled', assignee_id: null, version: 2 });
      expect((await t.events()).length).toBe(before + 1);
    });
  });

  it('refuses a new task in a paused project with 422302, while existing tasks keep moving', async () => {
    const p = await t.client.createProject({ name: 'Paused site', number: 'PS-1' }, lead);
    await t.client.changeProjectStatus({ id: p.id, status: 'in_progress' }, lead);
    const existing = await t.client.createTask({ projectId: p.id, name: 'Before the pause' }, lead);
    await t.client.changeProjectStatus({ id: p.id, status: 'paused' }, lead);
    const before = (await t.events()).length;
    await expectRefused(t.client.createTask({ projectId: p.id, name: 'During the pause' }, lead), '422302', 'project_id');
    expect(await t.sql('SELECT name FROM projects.tasks WHERE project_id = $1', [p.id])).toEqual([{ name: 'Before the pause' }]);
    expect((await t.events()).length).toBe(before);
    expect((await move(existing.id, 'in_progress')).status).toBe('in_progress');
  });

  describe('deadlines', () => {
    it('refuses status updates of an overdue task with 422304 until due_at moves past now', async () => {
      const now = t.clock.now();
      const task = await create({ dueAt: new Date(now.getTime() + 60_000).toISOString(), assigneeId: worker.id });
      expect(task.overdue).toBe(false);
      t.clock.advance(120_000);
      expect((await t.client.getTask({ id: task.id }, lead)).overdue).toBe(true);
      const before = (await t.events()).length;
      await expectRefused(move(task.id, 'in_progress'), '422304', 'status');
      await expectRefused(move(task.id, 'cancelled'), '422304', 'status');
      // Moved, but still in the past: still overdue.
      await patch({ id: task.id, dueAt: new Date(t.clock.now().getTime() - 1000).toISOString() });
      await expectRefused(move(task.id, 'in_progress'), '422304', 'status');
      expect(await stored(task.id)).toMatchObject({ status: 'assigned', version: 2 });
      expect((await t.events()).length).toBe(before);
      const extended = await patch({ id: task.id, dueAt: new Date(t.clock.now().getTime() + 86_400_000).toISOString() });
      expect(extended.overdue).toBe(false);
      expect((await move(task.id, 'in_progress')).status).toBe('in_progress');
    });

    it('refuses assigning an overdue pending task (it would change its status) with 422304', async () => {
      const task = await create({ dueAt: new Date(t.clock.now().getTime() - 1000).toISOString() });
      await expectRefused(t.client.assignTask({ id: task.id, userId: worker.id }, lead), '422304', 'status');
      expect(await stored(task.id)).toMatchObject({ status: 'pending', assignee_id: null });
    });
  });

  describe('reading, updating and deleting', () => {
    it('updates only the fields sent with optimistic concurrency; closed tasks are read-only (409005)', async () => {
      const task = await create({ description: 'first', dueAt: '2026-07-01T00:00:00Z' });
      const u = await patch({ id: task.id, expectedVersion: 1, name: 'Survey round 7', priority: 'urgent', clear: ['description', 'due_at'] });
      expect(u).toMatchObject({ name: 'Survey round 7', priority: 'urgent', version: 2 });
      expect(u.description).toBeUndefined();
      expect(u.dueAt).toBeUndefined();
      await expectRefused(patch({ id: task.id, expectedVersion: 1, name: 'Stale' }), '409004', 'version');
      await move(task.id, 'cancelled');
      await expectRefused(patch({ id: task.id, name: 'Too late' }), '409005', 'status');
      expect((await t.client.getTask({ id: task.id }, lead)).name).toBe('Survey round 7');
    });

    it('validates fields: 400003 name, 422103 priority and status, 400004 due_at without offset and ids', async () => {
      await expectRefused(create({ name: 'x' }), '400003', 'name');
      await expectRefused(create({ priority: 'asap' }), '422103', 'priority');
      await expectRefused(create({ dueAt: '2026-07-01T10:00:00' }), '400004', 'due_at');
      await expectRefused(create({ dueAt: '2026-02-30T10:00:00Z' }), '400004', 'due_at');
      const task = await create();
      await expectRefused(move(task.id, 'done'), '422103', 'status');
      await expectRefused(t.client.getTask({ id: 'task-1' }, lead), '400004', 'task_id');
      await expectRefused(t.client.getTask({ id: 'tsk_zzzzzzzzzzzzzzzzzzzz' }, lead), '404002', 'task_id');
      await expectRefused(t.client.getTask({ id: task.id }, { ...lead, tenantId: 'ten_anotheranotheranoth' }), '403003', 'task_id');
      await expectRefused(t.client.getTask({ id: task.id }, { ...lead, environment: 'sandbox' }), '404002', 'task_id');
      await expectRefused(t.client.createTask({ projectId: 'prj_zzzzzzzzzzzzzzzzzzzz', name: 'Nowhere' }, lead), '404001', 'project_id');
    });

    it('deletes a task (409004 when stale, then 404002) and lets only project members see tasks', async () => {
      const task = await create();
      await expectRefused(t.client.deleteTask({ id: task.id, expectedVersion: 5 }, lead), '409004', 'version');
      await expectRefused(t.client.getTask({ id: task.id }, t.user()), '403001', 'project_id');
      await expectRefused(t.client.deleteTask({ id: task.id }, t.user(viewerId)), '403002', 'project_id');
      expect((await t.client.deleteTask({ id: task.id, expectedVersion: 1 }, lead)).id).toBe(task.id);
      await expectRefused(t.client.getTask({ id: task.id }, lead), '404002', 'task_id');
    });

    it('filters by status, assignee, priority, overdue and name, and pages', async () => {
      const p = await t.client.createProject({ name: 'Filters', number: 'FL-1' }, lead);
      await t.client.addMember({ projectId: p.id, userId: worker.id, role: 'editor' }, lead);
      const mk = (name: string, over: Partial<projects.CreateTaskRequest> = {}) => t.client.createTask({ projectId: p.id, name, ...over }, lead);
      const a = await mk('Alpha levelling', { assigneeId: worker.id, priority: 'high' });
      const b = await mk('Beta levelling', { dueAt: new Date(t.clock.now().getTime() - 1000).toISOString() });
      const c = await mk('Gamma crack survey');
      const list = (f: Partial<projects.ListTasksRequest>) =>
        t.client.listTasks({ projectId: p.id, page: undefined, ...f }, lead).then((l) => l.items.map((x) => x.id));
      expect(await list({ status: 'assigned' })).toEqual([a.id]);
      expect(await list({ assigneeId: worker.id })).toEqual([a.id]);
      expect(await list({ priority: 'normal' })).toEqual([c.id, b.id]);
      expect(await list({ overdue: true })).toEqual([b.id]);
      expect(await list({ overdue: false })).toEqual([c.id, a.id]);
      expect(await list({ q: 'levelling' })).toEqual([b.id, a.id]);
      const first = await t.client.listTasks({ projectId: p.id, page: { limit: 2, cursor: '' } }, lead);
      const second = await t.client.listTasks({ projectId: p.id, page: { limit: 2, cursor: first.page!.nextCursor! } }, lead);
      expect([...first.items, ...second.items].map((x) => x.id)).toEqual([c.id, b.id, a.id]);
      expect(second.page?.hasMore).toBe(false);
      await expectRefused(list({ status: 'open' }), '422103', 'status');
    });
  });
});
