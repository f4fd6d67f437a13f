import { refusal, startTestProjects, type TestProjects } from './support/harness.js';

// ADR 0022: each change monitoring-data's ingest context depends on bumps the project's ingest
// version in its transaction and hands it over before committing; a change whose version cannot
// be handed over is refused and leaves nothing behind.
describe('the ingest version of a project', () => {
  let t: TestProjects;
  beforeAll(async () => {
    t = await startTestProjects();
  });
  afterAll(() => t?.stop());

  const point = (projectId: string, n: number) => ({
    projectId,
    number: `P${n}`,
    name: `Crown settlement P${n}`,
    sensorType: 'total_station',
    reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
    warningThreshold: 10,
    alarmThreshold: 20,
  });
  const ingestVersion = async (id: string) =>
    Number((await t.sql<{ v: string }>('SELECT ingest_version AS v FROM projects.projects WHERE id = $1', [id]))[0]!.v);

  it('is bumped once per change, and concurrent changes of one project neither deadlock nor lose a bump', async () => {
    const p = await t.client.createProject({ name: 'Tunnel section', number: `T-${Date.now()}`, startDate: '2026-01-01' }, t.key);
    expect(await ingestVersion(p.id)).toBe(1);
    // Ten point creations and a status change at once: each locks the project row for update.
    const created = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => t.client.createPoint(point(p.id, i + 1), t.key)),
      t.client.changeProjectStatus({ id: p.id, status: 'in_progress' }, t.key),
    ]);
    expect(created).toHaveLength(11);
    expect(await ingestVersion(p.id)).toBe(12);
    const first = created[0] as { id: string };
    await t.client.updatePoint({ id: first.id, warningThreshold: 5, clear: [] }, t.key);
    await t.client.updateProject({ id: p.id, startDate: '2026-02-01', clear: [] }, t.key);
    const user = t.user();
    await t.client.addMember({ projectId: p.id, userId: user.principalId, role: 'editor' }, t.key);
    await t.client.removeMember({ projectId: p.id, userId: user.principalId }, t.key);
    await t.client.deletePoint({ id: first.id }, t.key);
    expect(await ingestVersion(p.id)).toBe(17);
    // Reading the context returns the version it was read at.
    expect((await t.client.getIngestContext({ projectId: p.id, pointIds: [], forWrite: true }, t.key)).version).toBe(17);
  });

  it('refuses a change with 503002, and changes nothing, while monitoring-data cannot be told', async () => {
    const p = await t.client.createProject({ name: 'Harbour wall', number: `H-${Date.now()}`, startDate: '2026-01-01' }, t.key);
    const pt = await t.client.createPoint(point(p.id, 1), t.key);
    const before = await t.sql('SELECT status, version, ingest_version FROM projects.projects WHERE id = $1', [p.id]);
    const events = await t.sql('SELECT count(*)::int AS n FROM projects.outbox');
    // Nothing listens on port 1 of loopback (the last test: the service stays so until it stops).
    t.replicas[0]!.service.connectIngestVersions('127.0.0.1:1');
    expect((await refusal(t.client.changeProjectStatus({ id: p.id, status: 'in_progress' }, t.key))).code).toBe('503002');
    expect((await refusal(t.client.updatePoint({ id: pt.id, active: false, clear: [] }, t.key))).code).toBe('503002');
    expect(await t.sql('SELECT status, version, ingest_version FROM projects.projects WHERE id = $1', [p.id])).toEqual(before);
    expect(await t.sql('SELECT active, version FROM projects.points WHERE id = $1', [pt.id])).toEqual([{ active: true, version: 1 }]);
    expect(await t.sql('SELECT count(*)::int AS n FROM projects.outbox')).toEqual(events);
  });
});
