import type { projects } from '@mp/contracts';
import { newId } from '@mp/kit';
import { expectRefused, startTestProjects, type TestProjects } from './support/harness.js';

// Who may do what in a project (docs/adr/0007): API keys and system:admin users act tenant-wide;
// other users need membership — none is 403001, viewer writing 403002, editor managing 403002.
describe('project members and access', () => {
  let t: TestProjects;
  let seq = 0;
  const owner = () => t.user(ownerId);
  let ownerId: string;
  let project: projects.Project;
  const ids = { editor: newId('user'), viewer: newId('user'), outsider: newId('user') };
  const point = (projectId: string, number: string) => ({
    projectId,
    number,
    name: number,
    sensorType: 'total_station',
    reference: { x: 10, y: 20, z: 30 },
    warningThreshold: 5,
    alarmThreshold: 10,
  });

  beforeAll(async () => {
    t = await startTestProjects();
    ownerId = newId('user');
    project = await t.client.createProject({ name: 'Tunnel T1', number: `MA-${++seq}` }, owner());
    await t.client.addMember({ projectId: project.id, userId: ids.editor, role: 'editor', name: 'Zhang Wei', phone: '13812345678' }, owner());
    await t.client.addMember({ projectId: project.id, userId: ids.viewer, role: 'viewer' }, owner());
  });
  afterAll(() => t?.stop());

  it('makes the user who creates a project its owner; an API key creates without a member row', async () => {
    const members = await t.client.listMembers({ projectId: project.id, page: undefined }, owner());
    expect(members.items.map((m) => [m.userId, m.role])).toEqual([
      [ids.viewer, 'viewer'],
      [ids.editor, 'editor'],
      [ownerId, 'owner'],
    ]);
    const byKey = await t.client.createProject({ name: 'By key', number: `MA-${++seq}` }, t.key);
    expect((await t.client.listMembers({ projectId: byKey.id, page: undefined }, t.key)).items).toEqual([]);
  });

  it('keeps a member’s phone masked only', async () => {
    const [editor] = (await t.client.listMembers({ projectId: project.id, role: 'editor', page: undefined }, owner())).items;
    expect(editor).toMatchObject({ userId: ids.editor, role: 'editor', name: 'Zhang Wei', phone: '138****5678', addedBy: ownerId });
    const rows = await t.sql<{ phone_masked: string }>('SELECT phone_masked FROM projects.project_members WHERE user_id = $1', [ids.editor]);
    expect(rows).toEqual([{ phone_masked: '138****5678' }]);
  });

  it('refuses a non-member with 403001 everywhere in the project and leaves the project out of their list', async () => {
    const outsider = t.user(ids.outsider);
    await expectRefused(t.client.getProject({ id: project.id }, outsider), '403001', 'project_id');
    await expectRefused(t.client.listTasks({ projectId: project.id, page: undefined }, outsider), '403001', 'project_id');
    await expectRefused(t.client.listPoints({ projectId: project.id, page: undefined }, outsider), '403001', 'project_id');
    await expectRefused(t.client.listMembers({ projectId: project.id, page: undefined }, outsider), '403001', 'project_id');
    await expectRefused(t.client.createTask({ projectId: project.id, name: 'Intrude' }, outsider), '403001', 'project_id');
    await expectRefused(t.client.getIngestContext({ projectId: project.id, pointIds: [], forWrite: false }, outsider), '403001', 'project_id');
    expect((await t.client.listProjects({ page: undefined }, outsider)).items).toEqual([]);
    expect((await t.client.listProjects({ page: undefined }, owner())).items.map((p) => p.id)).toEqual([project.id]);
  });

  it('lets a viewer read but refuses every write with 403002, storing nothing', async () => {
    const viewer = t.user(ids.viewer);
    expect((await t.client.getProject({ id: project.id }, viewer)).id).toBe(project.id);
    const before = (await t.events()).length;
    await expectRefused(t.client.updateProject({ id: project.id, name: 'Renamed', clear: [] }, viewer), '403002', 'project_id');
    await expectRefused(t.client.changeProjectStatus({ id: project.id, status: 'in_progress' }, viewer), '403002', 'project_id');
    await expectRefused(t.client.createTask({ projectId: project.id, name: 'Survey' }, viewer), '403002', 'project_id');
    await expectRefused(t.client.createPoint(point(project.id, 'V1'), viewer), '403002', 'project_id');
    await expectRefused(t.client.getIngestContext({ projectId: project.id, pointIds: [], forWrite: true }, viewer), '403002', 'project_id');
    expect((await t.client.getIngestContext({ projectId: project.id, pointIds: [], forWrite: false }, viewer)).project?.id).toBe(project.id);
    expect(
      await t.sql('SELECT id FROM projects.tasks WHERE project_id = $1 UNION ALL SELECT id FROM projects.points WHERE project_id = $1', [project.id]),
    ).toEqual([]);
    expect((await t.client.getProject({ id: project.id }, viewer)).version).toBe(1);
    expect(await t.events()).toHaveLength(before);
  });

  it('lets an editor write but not manage members or delete the project (403002)', async () => {
    const editor = t.user(ids.editor);
    const task = await t.client.createTask({ projectId: project.id, name: 'Survey round 1' }, editor);
    expect(task.createdBy).toBe(ids.editor);
    await expectRefused(t.client.addMember({ projectId: project.id, userId: newId('user'), role: 'viewer' }, editor), '403002', 'project_id');
    await expectRefused(t.client.removeMember({ projectId: project.id, userId: ids.viewer }, editor), '403002', 'project_id');
    await expectRefused(t.client.deleteProject({ id: project.id }, editor), '403002', 'project_id');
    expect((await t.client.listMembers({ projectId: project.id, page: undefined }, editor)).items).toHaveLength(3);
  });

  it('lets a system:admin user act without membership', async () => {
    const admin = t.user(newId('user'), { permissions: ['project:read', 'project:write', 'system:admin'] });
    expect((await t.client.getProject({ id: project.id }, admin)).id).toBe(project.id);
    expect((await t.client.listProjects({ page: undefined }, admin)).items.length).toBeGreaterThanOrEqual(2);
  });

  it('changes a role by adding again, removes members, and answers 404007 for a user who is not one', async () => {
    const someone = newId('user');
    await t.client.addMember({ projectId: project.id, userId: someone, role: 'viewer', name: 'Wang Fang' }, owner());
    const promoted = await t.client.addMember({ projectId: project.id, userId: someone, role: 'editor' }, owner());
    expect(promoted).toMatchObject({ userId: someone, role: 'editor', name: 'Wang Fang' });
    const removed = await t.client.removeMember({ projectId: project.id, userId: someone }, owner());
    expect(removed.userId).toBe(someone);
    await expectRefused(t.client.removeMember({ projectId: project.id, userId: someone }, owner()), '404007', 'user_id');
    await expectRefused(t.client.getProject({ id: project.id }, t.user(someone)), '403001', 'project_id');
  });

  it('validates member requests: 400004 user id, 422103 role, 400004 phone', async () => {
    await expectRefused(t.client.addMember({ projectId: project.id, userId: 'bob', role: 'viewer' }, owner()), '400004', 'user_id');
    await expectRefused(t.client.addMember({ projectId: project.id, userId: newId('user'), role: 'admin' }, owner()), '422103', 'role');
    await expectRefused(t.client.addMember({ projectId: project.id, userId: newId('user'), role: 'viewer', phone: 'call me' }, owner()), '400004', 'phone');
    await expectRefused(t.client.listMembers({ projectId: project.id, role: 'boss', page: undefined }, owner()), '422103', 'role');
    expect((await t.client.listMembers({ projectId: project.id, page: undefined }, owner())).items).toHaveLength(3);
  });

  it('pages through members', async () => {
    const p = await t.client.createProject({ name: 'Many members', number: `MA-${++seq}` }, t.key);
    for (let i = 0; i < 5; i++) await t.client.addMember({ projectId: p.id, userId: newId('user'), role: 'viewer' }, t.key);
    const first = await t.client.listMembers({ projectId: p.id, page: { limit: 3, cursor: '' } }, t.key);
    expect(first.items).toHaveLength(3);
    expect(first.page?.hasMore).toBe(true);
    const second = await t.client.listMembers({ projectId: p.id, page: { limit: 3, cursor: first.page!.nextCursor! } }, t.key);
    expect(second.items).toHaveLength(2);
    expect(second.page?.hasMore).toBe(false);
    expect(new Set([...first.items, ...second.items].map((m) => m.userId)).size).toBe(5);
  });

  describe('GetIngestContext (for monitoring-data)', () => {
    it('returns the project, its bounds and the listed points of this project only', async () => {
      const bounds = { minX: 0, maxX: 1000, minY: 0, maxY: 1000, minZ: -50, maxZ: 50 };
      const p = await t.client.createProject({ name: 'Ingest', number: `MA-${++seq}`, bounds }, t.key);
      const other = await t.client.createProject({ name: 'Other', number: `MA-${++seq}` }, t.key);
      const a = await t.client.createPoint({ ...point(p.id, 'A'), abruptChangeLimit: 15, precision: 0.5 }, t.key);
      const b = await t.client.createPoint({ ...point(p.id, 'B'), active: false }, t.key);
      const foreign = await t.client.createPoint(point(other.id, 'A'), t.key);
      const ctx = await t.client.getIngestContext(
        { projectId: p.id, pointIds: [a.id, b.id, foreign.id, 'pt_zzzzzzzzzzzzzzzzzzzz', 'junk'], forWrite: true },
        t.key,
      );
      expect(ctx.project).toMatchObject({ id: p.id, status: 'not_started' });
      expect(ctx.bounds).toEqual(bounds);
      expect(ctx.points.sort((x, y) => x.number.localeCompare(y.number))).toEqual([
        {
          id: a.id,
          projectId: p.id,
          number: 'A',
          name: 'A',
          sensorType: 'total_station',
          reference: { x: 10, y: 20, z: 30 },
          warningThreshold: 5,
          alarmThreshold: 10,
          abruptChangeLimit: 15,
          precision: 0.5,
          active: true,
          triggerLevels: [],
          calibrations: [],
          derivedChannels: [],
        },
        {
          id: b.id,
          projectId: p.id,
          number: 'B',
          name: 'B',
          sensorType: 'total_station',
          reference: { x: 10, y: 20, z: 30 },
          warningThreshold: 5,
          alarmThreshold: 10,
          active: false,
          triggerLevels: [],
          calibrations: [],
          derivedChannels: [],
        },
      ]);
      const noBounds = await t.client.getIngestContext({ projectId: other.id, pointIds: [], forWrite: false }, t.key);
      expect(noBounds.bounds).toBeUndefined();
      expect(noBounds.points).toEqual([]);
    });

    it('answers 404001 for an unknown project and 400004 for a malformed id', async () => {
      await expectRefused(t.client.getIngestContext({ projectId: 'prj_zzzzzzzzzzzzzzzzzzzz', pointIds: [], forWrite: true }, t.key), '404001', 'project_id');
      await expectRefused(t.client.getIngestContext({ projectId: 'x', pointIds: [], forWrite: true }, t.key), '400004', 'project_id');
    });
  });
});
