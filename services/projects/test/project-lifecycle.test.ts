import type { projects } from '@mp/contracts';
import { PROJECT_STATUSES, PROJECT_TRANSITIONS, type ProjectStatus } from '../src/transitions.js';
import { expectRefused, startTestProjects, type TestProjects } from './support/harness.js';

// The project transition table, walked move by move against the running service, with the events
// each move leaves on JetStream. Also PATCH/DELETE with optimistic concurrency and the archived rule.
describe('project lifecycle', () => {
  let t: TestProjects;
  let seq = 0;
  const create = (over: Partial<projects.CreateProjectRequest> = {}) => t.client.createProject({ name: 'North slope', number: `LC-${++seq}`, ...over }, t.key);
  const move = (id: string, status: string, remark?: string) => t.client.changeProjectStatus({ id, status, ...(remark ? { remark } : {}) }, t.key);
  const patch = (req: Omit<projects.UpdateProjectRequest, 'clear'> & { clear?: string[] }, ctx = t.key) => t.client.updateProject({ clear: [], ...req }, ctx);
  const stored = async (id: string) =>
    (await t.sql<{ status: string; version: number }>('SELECT status, version FROM projects.projects WHERE id = $1', [id]))[0];

  beforeAll(async () => {
    t = await startTestProjects();
  });
  afterAll(() => t?.stop());

  // Shortest allowed path from not_started to each status.
  const PATH: Record<ProjectStatus, ProjectStatus[]> = {
    not_started: [],
    in_progress: ['in_progress'],
    paused: ['in_progress', 'paused'],
    completed: ['in_progress', 'completed'],
    archived: ['archived'],
  };

  it('publishes this transition table', () => {
    expect(PROJECT_TRANSITIONS).toEqual({
      not_started: ['in_progress', 'archived'],
      in_progress: ['paused', 'completed'],
      paused: ['in_progress', 'completed'],
      completed: ['in_progress', 'archived'],
      archived: [],
    });
  });

  it('walks every move: allowed ones change the status and raise their events once, refused ones change nothing', async () => {
    const cases: { from: ProjectStatus; to: ProjectStatus; id: string; allowed: boolean }[] = [];
    for (const from of PROJECT_STATUSES) {
      for (const to of PROJECT_STATUSES) {
        const p = await create();
        for (const s of PATH[from]) await move(p.id, s);
        cases.push({ from, to, id: p.id, allowed: PROJECT_TRANSITIONS[from].includes(to) });
      }
    }
    for (const c of cases) {
      if (c.allowed) {
        const p = await move(c.id, c.to, `to ${c.to}`);
        expect({ from: c.from, status: p.status, version: p.version }).toEqual({ from: c.from, status: c.to, version: PATH[c.from].length + 2 });
      } else {
        // Archived refuses every change with 422301 before the table is consulted.
        await expectRefused(move(c.id, c.to), c.from === 'archived' ? '422301' : '409008', c.from === 'archived' ? 'project_id' : 'status');
        expect(await stored(c.id)).toEqual({ status: c.from, version: PATH[c.from].length + 1 });
      }
    }
    const events = await t.events();
    for (const c of cases) {
      const moves = c.allowed ? [...PATH[c.from], c.to] : PATH[c.from];
      let previous = 'not_started';
      const expected = ['project.created'];
      for (const s of moves) {
        expected.push(`project.status_changed ${previous}→${s}`);
        if (s === 'completed' || s === 'archived') expected.push(`project.completed ${previous}→${s}`);
        previous = s;
      }
      const got = events
        .filter((e) => e.data.project_id === c.id)
        .map((e) => (e.event_type === 'project.created' ? e.event_type : `${e.event_type} ${e.data.previous_status}→${e.data.current_status}`));
      expect({ from: c.from, to: c.to, events: got }).toEqual({ from: c.from, to: c.to, events: expected });
    }
  });

  it('carries the status-change payload on project.status_changed and project.completed', async () => {
    const owner = t.user();
    const p = await t.client.createProject({ name: 'Dam crest', number: `LC-${++seq}` }, owner);
    await t.client.addMember({ projectId: p.id, userId: owner.principalId, role: 'owner', name: 'Li Na', phone: '139 8765 4321' }, owner);
    const started = await t.client.changeProjectStatus({ id: p.id, status: 'in_progress', remark: 'Baseline survey done' }, owner);
    const done = await t.client.changeProjectStatus({ id: p.id, status: 'completed' }, owner);
    const events = (await t.events()).filter((e) => e.data.project_id === p.id);
    expect(events.map((e) => e.event_type)).toEqual(['project.created', 'project.status_changed', 'project.status_changed', 'project.completed']);
    const changedBy = { user_id: owner.principalId, name: 'Li Na', phone: '139****4321' };
    expect(events[1]!.data).toEqual({
      project_id: p.id,
      project_name: 'Dam crest',
      previous_status: 'not_started',
      current_status: 'in_progress',
      changed_by: changedBy,
      changed_at: started.updatedAt,
      remark: 'Baseline survey done',
    });
    expect(events[3]!.data).toEqual({
      ...events[2]!.data,
      previous_status: 'in_progress',
      current_status: 'completed',
      changed_at: done.updatedAt,
      remark: '',
    });
    for (const e of events) {
      expect(e.tenant_id).toBe(t.tenantId);
      expect(e.environment).toBe('live');
    }
  });

  it('refuses an unknown status value with 422103 and changes nothing', async () => {
    const p = await create();
    await expectRefused(move(p.id, 'finished'), '422103', 'status');
    expect(await stored(p.id)).toEqual({ status: 'not_started', version: 1 });
  });

  it('updates only the fields sent, bumps the version and refuses a stale version with 409004', async () => {
    const p = await create({ description: 'first', startDate: '2026-04-01' });
    const u = await patch({ id: p.id, expectedVersion: 1, name: 'North slope east', clear: ['description'] }, t.key);
    expect(u).toMatchObject({ name: 'North slope east', number: p.number, startDate: '2026-04-01', version: 2 });
    expect(u.description).toBeUndefined();
    await expectRefused(patch({ id: p.id, expectedVersion: 1, name: 'Lost update' }, t.key), '409004', 'version');
    expect((await t.client.getProject({ id: p.id }, t.key)).name).toBe('North slope east');
    // Without a version the update applies to whatever is current.
    expect((await patch({ id: p.id, description: 'again' }, t.key)).version).toBe(3);
  });

  it('checks updates as it checks creation: 409001, 422204 on merged dates, 400003', async () => {
    const a = await create();
    const b = await create({ startDate: '2026-04-01' });
    await expectRefused(patch({ id: b.id, number: a.number }, t.key), '409001', 'number');
    await expectRefused(patch({ id: b.id, endDate: '2026-03-01' }, t.key), '422204', 'end_date');
    await expectRefused(patch({ id: b.id, name: 'x' }, t.key), '400003', 'name');
    await expectRefused(patch({ id: b.id, clear: ['name'] }, t.key), '422103', 'name');
    expect(await stored(b.id)).toEqual({ status: 'not_started', version: 1 });
  });

  it('keeps plausible-coordinate bounds: min below max (422204), points inside (422201), null clears', async () => {
    const bounds = { minX: 3_000_000, maxX: 4_000_000, minY: 400_000, maxY: 600_000, minZ: -100, maxZ: 500 };
    const p = await create({ bounds });
    expect(p.bounds).toEqual(bounds);
    await expectRefused(create({ bounds: { ...bounds, minZ: 600 } }), '422204', 'bounds.max_z');
    await t.client.createPoint(
      {
        projectId: p.id,
        number: 'P1',
        name: 'P1',
        sensorType: 'gnss',
        reference: { x: 3_500_000, y: 500_000, z: 40 },
        warningThreshold: 10,
        alarmThreshold: 20,
      },
      t.key,
    );
    await expectRefused(patch({ id: p.id, bounds: { ...bounds, maxZ: 30 } }), '422201', 'bounds');
    expect((await t.client.getProject({ id: p.id }, t.key)).bounds).toEqual(bounds);
    const cleared = await patch({ id: p.id, clear: ['bounds'] }, t.key);
    expect(cleared.bounds).toBeUndefined();
  });

  it('refuses every change of an archived project with 422301 and keeps it', async () => {
    const p = await create();
    await move(p.id, 'archived');
    const before = await t.events();
    await expectRefused(patch({ id: p.id, name: 'Reopened' }, t.key), '422301', 'project_id');
    await expectRefused(t.client.deleteProject({ id: p.id }, t.key), '422301', 'project_id');
    await expectRefused(t.client.createTask({ projectId: p.id, name: 'Late survey' }, t.key), '422301', 'project_id');
    await expectRefused(
      t.client.createPoint(
        { projectId: p.id, number: 'A1', name: 'A1', sensorType: 'level', reference: { x: 1, y: 2, z: 3 }, warningThreshold: 1, alarmThreshold: 2 },
        t.key,
      ),
      '422301',
      'project_id',
    );
    await expectRefused(t.client.addMember({ projectId: p.id, userId: t.user().principalId, role: 'viewer' }, t.key), '422301', 'project_id');
    expect(await stored(p.id)).toEqual({ status: 'archived', version: 2 });
    expect(await t.sql('SELECT id FROM projects.tasks WHERE project_id = $1 UNION ALL SELECT id FROM projects.points WHERE project_id = $1', [p.id])).toEqual(
      [],
    );
    expect(await t.events()).toHaveLength(before.length);
    // Reading stays possible.
    expect((await t.client.getProject({ id: p.id }, t.key)).status).toBe('archived');
  });

  it('deletes a project with its tasks and points; a stale version is 409004; afterwards 404001', async () => {
    const p = await create();
    await t.client.createTask({ projectId: p.id, name: 'Survey' }, t.key);
    await t.client.createPoint(
      { projectId: p.id, number: 'D1', name: 'D1', sensorType: 'level', reference: { x: 1, y: 2, z: 3 }, warningThreshold: 1, alarmThreshold: 2 },
      t.key,
    );
    await expectRefused(t.client.deleteProject({ id: p.id, expectedVersion: 7 }, t.key), '409004', 'version');
    const gone = await t.client.deleteProject({ id: p.id, expectedVersion: 1 }, t.key);
    expect(gone.id).toBe(p.id);
    await expectRefused(t.client.getProject({ id: p.id }, t.key), '404001', 'project_id');
    expect(await t.sql('SELECT id FROM projects.tasks WHERE project_id = $1 UNION ALL SELECT id FROM projects.points WHERE project_id = $1', [p.id])).toEqual(
      [],
    );
  });

  it('answers 404001 for unknown projects (also from the other environment), 403003 for another tenant’s, 400004 for malformed ids', async () => {
    const p = await create();
    await expectRefused(t.client.getProject({ id: 'prj_zzzzzzzzzzzzzzzzzzzz' }, t.key), '404001', 'project_id');
    await expectRefused(t.client.getProject({ id: p.id }, { ...t.key, tenantId: 'ten_otherotherotherothe' }), '403003', 'project_id');
    await expectRefused(
      t.client.changeProjectStatus({ id: p.id, status: 'in_progress' }, { ...t.key, tenantId: 'ten_otherotherotherothe' }),
      '403003',
      'project_id',
    );
    expect(await stored(p.id)).toEqual({ status: 'not_started', version: 1 });
    await expectRefused(t.client.getProject({ id: p.id }, { ...t.key, environment: 'sandbox' }), '404001', 'project_id');
    await expectRefused(t.client.changeProjectStatus({ id: 'nope', status: 'in_progress' }, t.key), '400004', 'project_id');
  });

  it('filters the list by status and q and pages through it', async () => {
    const tag = `flt${seq}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ name: `Filter ${tag} ${i}` })).id);
    await move(ids[1]!, 'in_progress');
    await move(ids[3]!, 'in_progress');
    const running = await t.client.listProjects({ q: tag, status: 'in_progress', page: { limit: 20, cursor: '' } }, t.key);
    expect(running.items.map((p) => p.id)).toEqual([ids[3], ids[1]]);
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await t.client.listProjects({ q: tag, page: { limit: 2, cursor } }, t.key);
      seen.push(...page.items.map((p) => p.id));
      cursor = page.page?.nextCursor ?? '';
      expect(page.page?.hasMore).toBe(cursor !== '');
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    await expectRefused(t.client.listProjects({ status: 'done', page: undefined }, t.key), '422103', 'status');
  });
});
