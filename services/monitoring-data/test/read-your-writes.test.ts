import { monitoringData, projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { createClient, type CallerContext, type PromiseClient } from '@mp/grpc';
import { newId } from '@mp/kit';
import { columns, startHarness, type Harness, type RecordIn } from './harness.js';

type DataClient = PromiseClient<monitoringData.MonitoringDataServer>;

// Read after write (ADR 0022): after any answered change of a project, a point or a membership,
// the very next data request sees it, on any replica, with the default settings (a 2 s context
// cache). Both replicas are warmed with the old state before each change, then written to at once.
describe('read-your-writes: the next data request after a change sees it, on every replica', () => {
  let h: Harness;
  let a: DataClient;
  let b: DataClient;
  let minute = 0;
  // Every record at a new instant (a point takes one record per instant).
  const next = () => new Date(Date.UTC(2026, 2, 1, 0, ++minute)).toISOString();
  const near = (point: string, extra: Partial<RecordIn> = {}): RecordIn => ({
    point_id: point,
    measured_at: next(),
    values: { x: 3512345.101, y: 512345.602, z: 45.299 },
    ...extra,
  });

  const write = (replica: DataClient, projectId: string, records: RecordIn[], caller = h.caller) =>
    replica.writeRecords({ projectId, records: columns(records) }, caller);

  /** The write's outcome: the stored statuses, or the refusal's code and field. */
  const outcome = (replica: DataClient, projectId: string, records: RecordIn[], caller = h.caller) =>
    write(replica, projectId, records, caller).then(
      (r) => ({ stored: r.status }),
      (e: unknown) => {
        if (!(e instanceof DomainError)) throw e;
        return { code: e.code, field: e.field };
      },
    );

  /** Writes through both replicas (each with a cached context now), in both orders. */
  const onBoth = async (projectId: string, make: () => RecordIn[], caller = h.caller) => [
    await outcome(a, projectId, make(), caller),
    await outcome(b, projectId, make(), caller),
  ];

  beforeAll(async () => {
    h = await startHarness();
    a = h.data;
    b = await h.replica();
  });
  afterAll(() => h?.stop());

  it('a project just started takes data at once (422303 before)', async () => {
    const p = await h.project({ status: 'not_started' });
    const pt = p.points[0]!.id;
    const refused = { code: '422303', field: 'project_id' };
    expect(await onBoth(p.id, () => [near(pt)])).toEqual([refused, refused]);
    await h.projects.changeProjectStatus({ id: p.id, status: 'in_progress' }, h.caller);
    expect(await onBoth(p.id, () => [near(pt)])).toEqual([{ stored: ['normal'] }, { stored: ['normal'] }]);
  });

  it('a project just archived takes no more data, and nothing is stored', async () => {
    const p = await h.project({ status: 'completed' });
    const pt = p.points[0]!.id;
    expect(await onBoth(p.id, () => [near(pt)])).toEqual([{ stored: ['normal'] }, { stored: ['normal'] }]);
    await h.projects.changeProjectStatus({ id: p.id, status: 'archived' }, h.caller);
    const refused = { code: '422301', field: 'project_id' };
    expect(await onBoth(p.id, () => [near(pt)])).toEqual([refused, refused]);
    expect(await h.rows('SELECT count(*)::int AS n FROM monitoring_data.data_records WHERE project_id = $1', [p.id])).toEqual([{ n: 2 }]);
  });

  it('new plausible bounds apply to the next record', async () => {
    const p = await h.project();
    const pt = p.points[0]!.id;
    // 55 m east of the reference: a plausible displacement (alarm), outside the bounds set next.
    const far = () => [near(pt, { values: { x: 3_512_400, y: 512345.602, z: 45.299 } })];
    expect(await onBoth(p.id, far)).toEqual([{ stored: ['alarm'] }, { stored: ['alarm'] }]);
    await h.projects.updateProject(
      { id: p.id, bounds: { minX: 3_500_000, maxX: 3_512_380, minY: 400_000, maxY: 600_000, minZ: -100, maxZ: 500 }, clear: [] },
      h.caller,
    );
    const refused = { code: '422201', field: 'records[0].values.x' };
    expect(await onBoth(p.id, far)).toEqual([refused, refused]);
  });

  it('a later start date applies to the next record', async () => {
    const p = await h.project();
    const pt = p.points[0]!.id;
    expect(await onBoth(p.id, () => [near(pt)])).toEqual([{ stored: ['normal'] }, { stored: ['normal'] }]);
    await h.projects.updateProject({ id: p.id, startDate: '2026-06-01', clear: [] }, h.caller);
    const refused = { code: '422202', field: 'records[0].measured_at' };
    expect(await onBoth(p.id, () => [near(pt)])).toEqual([refused, refused]);
  });

  it("a point's new thresholds decide the next record's status", async () => {
    const p = await h.project();
    const pt = p.points[0]!.id;
    // 3 mm east of the reference: normal against 10/20 mm, alarm against 1/2 mm.
    const moved = () => [near(pt, { values: { x: 3512345.103, y: 512345.6, z: 45.3 } })];
    expect(await onBoth(p.id, moved)).toEqual([{ stored: ['normal'] }, { stored: ['normal'] }]);
    await h.projects.updatePoint({ id: pt, warningThreshold: 1, alarmThreshold: 2, clear: [] }, h.caller);
    expect(await onBoth(p.id, moved)).toEqual([{ stored: ['alarm'] }, { stored: ['alarm'] }]);
  });

  it("a point's new abrupt-change limit applies to the next record", async () => {
    const p = await h.project();
    const pt = p.points[0]!.id;
    let east = 0;
    // Each record 1 mm further east than the one before.
    const stepping = () => [near(pt, { values: { x: 3512345.1 + (east += 0.001), y: 512345.6, z: 45.3 } })];
    expect(await onBoth(p.id, stepping)).toEqual([{ stored: ['normal'] }, { stored: ['normal'] }]);
    await h.projects.updatePoint({ id: pt, abruptChangeLimit: 0.5, clear: [] }, h.caller);
    const refused = { code: '422203', field: 'records[0].values.dx' };
    expect(await onBoth(p.id, stepping)).toEqual([refused, refused]);
  });

  it("a point's new precision requirement applies to the next record", async () => {
    const p = await h.project();
    const pt = p.points[0]!.id;
    const stated = () => [near(pt, { precision: 1 })];
    expect(await onBoth(p.id, stated)).toEqual([{ stored: ['normal'] }, { stored: ['normal'] }]);
    await h.projects.updatePoint({ id: pt, precision: 0.5, clear: [] }, h.caller);
    const refused = { code: '422205', field: 'records[0].precision' };
    expect(await onBoth(p.id, stated)).toEqual([refused, refused]);
  });

  it('a point just deactivated (422103) or deleted (404003) takes no more data', async () => {
    const p = await h.project({ points: [{}, {}] });
    const [one, two] = p.points.map((x) => x.id) as [string, string];
    expect(await onBoth(p.id, () => [near(one), near(two)])).toEqual([{ stored: ['normal', 'normal'] }, { stored: ['normal', 'normal'] }]);
    await h.projects.updatePoint({ id: one, active: false, clear: [] }, h.caller);
    const inactive = { code: '422103', field: 'records[0].point_id' };
    expect(await onBoth(p.id, () => [near(one), near(two)])).toEqual([inactive, inactive]);
    await h.projects.deletePoint({ id: two }, h.caller);
    const unknown = { code: '404003', field: 'records[0].point_id' };
    expect(await onBoth(p.id, () => [near(two)])).toEqual([unknown, unknown]);
  });

  it('a member whose role was lowered, or who was removed, can no longer write (or read)', async () => {
    const p = await h.project();
    const pt = p.points[0]!.id;
    const user: CallerContext = { ...h.caller, requestId: 'req_member', principalType: 'user', principalId: newId('user') };
    await h.projects.addMember({ projectId: p.id, userId: user.principalId, role: 'editor' }, h.caller);
    expect(await onBoth(p.id, () => [near(pt)], user)).toEqual([{ stored: ['normal'] }, { stored: ['normal'] }]);
    const list = (replica: DataClient) =>
      replica.listRecords({ projectId: p.id, page: { limit: 1, cursor: '' } }, user).then(
        (r) => r.items.length,
        (e: DomainError) => e.code,
      );
    expect([await list(a), await list(b)]).toEqual([1, 1]);

    await h.projects.addMember({ projectId: p.id, userId: user.principalId, role: 'viewer' }, h.caller);
    const readOnly = { code: '403002', field: 'project_id' };
    expect(await onBoth(p.id, () => [near(pt)], user)).toEqual([readOnly, readOnly]);

    await h.projects.removeMember({ projectId: p.id, userId: user.principalId }, h.caller);
    expect([await list(a), await list(b)]).toEqual(['403001', '403001']);
  });

  it('takes ingest versions from the projects service only, and keeps the newest', async () => {
    const p = await h.project();
    const [stored] = await h.rows<{ version: string }>('SELECT version FROM monitoring_data.ingest_versions WHERE project_id = $1', [p.id]);
    const current = Number(stored!.version);
    const as = (party: 'projects' | 'gateway') =>
      createClient<projects.IngestVersionsServer>(projects.IngestVersionsClient, projects.IngestVersionsService, h.dataAddress, {
        auth: h.keys.authFor(party),
        audience: 'monitoring-data',
      });
    const gateway = as('gateway');
    const fromProjects = as('projects');
    try {
      const forged = await gateway.advanceIngestVersion({ projectId: p.id, version: current + 100 }, h.caller).catch((e: DomainError) => e.code);
      expect(forged).toBe('502001');
      // An older version (a late retry) changes nothing; a newer one is kept.
      expect(await fromProjects.advanceIngestVersion({ projectId: p.id, version: current - 1 }, h.caller)).toEqual({ version: current });
      expect(await fromProjects.advanceIngestVersion({ projectId: p.id, version: current + 1 }, h.caller)).toEqual({ version: current + 1 });
      expect(await h.rows('SELECT version::int AS v FROM monitoring_data.ingest_versions WHERE project_id = $1', [p.id])).toEqual([{ v: current + 1 }]);
    } finally {
      gateway.close();
      fromProjects.close();
    }
  });

  // The same guarantee as a loop: each iteration changes the point, then writes through the
  // replica that did not see the previous write, and must see the state just set. Eight projects
  // run side by side (each strictly change-then-write) so that the 10,000 iterations fit in CI.
  it('10,000 changes, each followed at once by a write, never see the state before the change', async () => {
    const ITERATIONS = 10_000;
    const LANES = 8;
    const states: { change: Omit<projects.UpdatePointRequest, 'id' | 'clear'>; expected: object }[] = [
      { change: { active: false }, expected: { code: '422103', field: 'records[0].point_id' } },
      { change: { active: true, warningThreshold: 10, alarmThreshold: 20 }, expected: { stored: ['normal'] } },
      { change: { active: false }, expected: { code: '422103', field: 'records[0].point_id' } },
      { change: { active: true, warningThreshold: 1, alarmThreshold: 2 }, expected: { stored: ['alarm'] } },
    ];
    const lanes = await Promise.all(Array.from({ length: LANES }, () => h.project()));
    const seen: string[] = [];
    const started = Date.now();
    await Promise.all(
      lanes.map(async (p, lane) => {
        const pt = p.points[0]!.id;
        let instant = Date.UTC(2026, 3, 1);
        for (let k = 0, i = lane; i < ITERATIONS; k++, i += LANES) {
          const step = states[k % states.length]!;
          await h.projects.updatePoint({ id: pt, ...step.change, clear: [] }, h.caller);
          const record: RecordIn = { point_id: pt, measured_at: new Date((instant += 60_000)).toISOString(), values: { x: 3512345.103, y: 512345.6, z: 45.3 } };
          const got = await outcome(i % 2 ? a : b, p.id, [record]);
          if (JSON.stringify(got) !== JSON.stringify(step.expected))
            seen.push(`iteration ${i}: ${JSON.stringify(got)}, expected ${JSON.stringify(step.expected)}`);
        }
      }),
    );
    // Not an assertion (no timing assertions in tests): the figure for the report and CI logs.
    console.log(`read-your-writes loop: ${ITERATIONS} change-then-write iterations in ${Date.now() - started} ms`);
    expect(seen).toEqual([]);
    const stored = await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_data.data_records WHERE project_id = ANY($1)', [
      lanes.map((p) => p.id),
    ]);
    expect(stored).toEqual([{ n: ITERATIONS / 2 }]);
  }, 600_000);
});
