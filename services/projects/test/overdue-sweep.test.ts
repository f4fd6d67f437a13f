import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { startTestProjects, type TestProjects } from './support/harness.js';

// The overdue sweep runs in every replica. With two replicas of the service on one database, each
// overdue task is flagged once and raises task.overdue exactly once, whoever gets there first.
describe('overdue sweep with two replicas', () => {
  let t: TestProjects;
  let lead: CallerContext;
  let projectId: string;
  const worker = newId('user');
  const at = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();
  const sweepBoth = async () => (await Promise.all(t.replicas.map((r) => r.service.runOverdueSweep()))).reduce((a, b) => a + b, 0);
  const overdueEvents = async () => (await t.events()).filter((e) => e.event_type === 'task.overdue');

  beforeAll(async () => {
    t = await startTestProjects({ replicas: 2 });
    lead = t.user();
    const p = await t.replicas[0]!.client.createProject({ name: 'Slope S3', number: 'S3' }, lead);
    projectId = p.id;
    await t.client.addMember({ projectId, userId: worker, role: 'editor', name: 'Zhang Wei', phone: '13812345678' }, lead);
  });
  afterAll(() => t?.stop());

  it('flags a task once its deadline passes, once, and raises one task.overdue with the task and its assignee', async () => {
    const due = at(3_600_000);
    const a = await t.client.createTask({ projectId, name: 'Crack survey', dueAt: due, assigneeId: worker }, lead);
    const done = await t.client.createTask({ projectId, name: 'Finished early', dueAt: due }, lead);
    await t.client.changeTaskStatus({ id: done.id, status: 'in_progress' }, lead);
    await t.client.changeTaskStatus({ id: done.id, status: 'completed' }, lead);
    const cancelled = await t.client.createTask({ projectId, name: 'Called off', dueAt: due }, lead);
    await t.client.changeTaskStatus({ id: cancelled.id, status: 'cancelled' }, lead);
    await t.client.createTask({ projectId, name: 'No deadline' }, lead);

    expect(await sweepBoth()).toBe(0);
    t.clock.advance(3_600_000 + 60_000);
    expect(await sweepBoth()).toBe(1);
    expect(await sweepBoth()).toBe(0);

    const events = await overdueEvents();
    expect(events).toHaveLength(1);
    const flaggedAt = (await t.sql<{ overdue_at: string }>('SELECT overdue_at FROM projects.tasks WHERE id = $1', [a.id]))[0]!.overdue_at;
    expect(events[0]!.data).toEqual({
      task_id: a.id,
      task_name: 'Crack survey',
      project_id: projectId,
      project_name: 'Slope S3',
      status: 'assigned',
      due_at: due,
      overdue_at: flaggedAt,
      assignee: { user_id: worker, name: 'Zhang Wei', phone: '138****5678' },
    });
    expect(events[0]!.tenant_id).toBe(t.tenantId);
    expect((await t.client.getTask({ id: a.id }, lead)).overdue).toBe(true);
    expect(await t.sql('SELECT id FROM projects.tasks WHERE overdue_at IS NOT NULL')).toEqual([{ id: a.id }]);

    // A new deadline ends the overdue state; when that one passes too, it is a new overdue.
    await t.client.updateTask({ id: a.id, dueAt: at(60_000), clear: [] }, lead);
    expect(await t.sql('SELECT overdue_at FROM projects.tasks WHERE id = $1', [a.id])).toEqual([{ overdue_at: null }]);
    expect(await sweepBoth()).toBe(0);
    t.clock.advance(120_000);
    expect(await sweepBoth()).toBe(1);
    expect((await overdueEvents()).filter((e) => e.data.task_id === a.id)).toHaveLength(2);
  });

  it('flags many tasks, racing both replicas over several batches, each exactly once', async () => {
    const before = (await overdueEvents()).length;
    const due = at(1000);
    const ids: string[] = [];
    // More than one sweep batch (200), so the replicas contend batch after batch.
    for (let i = 0; i < 250; i++) ids.push((await t.replicas[i % 2]!.client.createTask({ projectId, name: `Reading ${i}`, dueAt: due }, lead)).id);
    t.clock.advance(5000);
    const counts = await Promise.all([...t.replicas, ...t.replicas].map((r) => r.service.runOverdueSweep()));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(250);
    expect(await sweepBoth()).toBe(0);
    const events = (await overdueEvents()).slice(before);
    expect(events).toHaveLength(250);
    expect(new Set(events.map((e) => e.data.task_id))).toEqual(new Set(ids));
    const [row] = await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM projects.tasks WHERE id = ANY($1) AND overdue_at IS NOT NULL', [ids]);
    expect(row!.n).toBe(250);
  });
});
