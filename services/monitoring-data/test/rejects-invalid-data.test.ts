import { DomainError } from '@mp/errors';
import { newId } from '@mp/kit';
import { columns, startHarness, type Harness, type RecordIn } from './harness.js';

// Every validation rule of a data write: the code, the field naming the record, and that a
// refused request stored no row and wrote no event.
describe('a data write refused by a rule stores and emits nothing', () => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['project']>>;
  let plain: string, strict: string, inactive: string;

  const count = async () => ({
    rows: Number((await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_data.data_records'))[0]!.n),
    events: (await h.outbox()).length,
  });
  const write = (projectId: string, records: RecordIn[], caller = h.caller) => h.data.writeRecords({ projectId, records: columns(records) }, caller);

  async function expectRefused(projectId: string, records: RecordIn[], code: string, field: string, caller = h.caller) {
    const before = await count();
    const err = await write(projectId, records, caller).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect({ code: (err as DomainError).code, field: (err as DomainError).field }).toEqual({ code, field });
    expect((err as DomainError).detail.length).toBeGreaterThan(0);
    expect(await count()).toEqual(before);
    return err as DomainError;
  }

  const at = (day: number, hour = 8) => `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00+08:00`;
  const ok = (point: string, measured_at: string, values: RecordIn['values'] = { x: 3512345.101, y: 512345.602, z: 45.299 }): RecordIn => ({
    point_id: point,
    measured_at,
    values,
  });

  beforeAll(async () => {
    h = await startHarness();
    p = await h.project({
      points: [{}, { precision: 1, abruptChangeLimit: 15 }, { active: false }],
    });
    [plain, strict, inactive] = p.points.map((pt) => pt.id) as [string, string, string];
  });
  afterAll(() => h?.stop());

  it('refuses an unknown point with 404003 on records[i].point_id, even when the other records are valid', async () => {
    await expectRefused(p.id, [ok(plain, at(1)), ok(newId('point'), at(1))], '404003', 'records[1].point_id');
  });

  it('refuses a point of another project with 404003', async () => {
    const other = await h.project();
    await expectRefused(p.id, [ok(other.points[0]!.id, at(1))], '404003', 'records[0].point_id');
  });

  it('refuses writes to a project that has not started (422303) or is archived (422301)', async () => {
    const notStarted = await h.project({ status: 'not_started' });
    await expectRefused(notStarted.id, [ok(notStarted.points[0]!.id, at(1))], '422303', 'project_id');
    const archived = await h.project({ status: 'archived' });
    await expectRefused(archived.id, [ok(archived.points[0]!.id, at(1))], '422301', 'project_id');
  });

  it('accepts writes to paused and completed projects', async () => {
    for (const status of ['paused', 'completed']) {
      const q = await h.project({ status });
      const res = await write(q.id, [ok(q.points[0]!.id, at(1))]);
      expect(res.totalCount).toBe(1);
    }
  });

  it('refuses coordinates outside the plausible range with 422201 on the coordinate', async () => {
    await expectRefused(p.id, [ok(plain, at(2)), ok(plain, at(3), { x: 3512345123, y: 512345.678, z: 45.321 })], '422201', 'records[1].values.x');
    await expectRefused(p.id, [ok(plain, at(2), { z: 45321 })], '422201', 'records[0].values.z');
  });

  it('refuses displacements beyond ±100 m (given, or derived from a coordinate) with 422201 on the value', async () => {
    const e = await expectRefused(p.id, [ok(plain, at(2), { dx: 0, dy: 0, dz: 5e12 })], '422201', 'records[0].values.dz');
    expect(e.detail).toContain('±100000 mm');
    await expectRefused(p.id, [ok(plain, at(2)), ok(plain, at(3), { dx: 0, dy: -100_000.001, dz: 0 })], '422201', 'records[1].values.dy');
    // z 200 m above the reference: the derived dz is 200,000 mm
    await expectRefused(p.id, [ok(plain, at(2), { x: 3512345.101, y: 512345.602, z: 245.3 })], '422201', 'records[0].values.z');
    // the bound itself is accepted
    expect((await write(p.id, [ok(plain, at(4), { dx: 0, dy: 0, dz: -100_000 })])).totalCount).toBe(1);
  });

  it('refuses measured_at before the project start date on the site calendar with 422202, and accepts the first local minute', async () => {
    await expectRefused(p.id, [ok(plain, '2025-12-31T23:59:59+08:00')], '422202', 'records[0].measured_at');
    // 2026-01-01T00:30+08:00 is still 2025-12-31 in UTC, but on site it is the start date.
    expect((await write(p.id, [ok(plain, '2026-01-01T00:30:00+08:00')])).totalCount).toBe(1);
  });

  it('refuses measured_at in the future with 422202', async () => {
    const future = new Date(Date.now() + 86_400_000).toISOString();
    await expectRefused(p.id, [ok(plain, future)], '422202', 'records[0].measured_at');
  });

  it('refuses a change from the previous stored measurement over the abrupt-change limit with 422203', async () => {
    await write(p.id, [ok(strict, at(4), { dx: 0.8, dy: -1.1, dz: -1.2 })]);
    await expectRefused(p.id, [ok(strict, at(5), { dx: 0.8, dy: -1.1, dz: -85.0 })], '422203', 'records[0].values.dz');
    // 14 mm from the previous one is within the 15 mm limit.
    expect((await write(p.id, [ok(strict, at(5), { dx: 0.8, dy: -1.1, dz: -15.2 })])).totalCount).toBe(1);
  });

  it('compares with the previous record of the same request, in time order, for 422203', async () => {
    // Listed newest first: the record of day 7 follows day 6 (-16.0 → +5.0 = 21 mm).
    await expectRefused(p.id, [ok(strict, at(7), { dz: 5.0 }), ok(strict, at(6), { dz: -16.0 })], '422203', 'records[0].values.dz');
  });

  it('refuses displacements that disagree with the coordinates and the reference with 422204', async () => {
    // reference x 3512345.1 → x 3512345.112 is dx 12 mm, not 5.
    await expectRefused(p.id, [ok(plain, at(8), { x: 3512345.112, y: 512345.6, z: 45.3, dx: 5.0, dy: 0, dz: 0 })], '422204', 'records[0].values.dx');
  });

  it('refuses values coarser than the point precision with 422205 (digits written, or the stated precision)', async () => {
    await expectRefused(p.id, [ok(strict, at(9), { x: 3512345.1, y: 512345.7, z: 45.3 })], '422205', 'records[0].values.x');
    await expectRefused(p.id, [{ ...ok(strict, at(9), { x: 3512345.123, y: 512345.678, z: 45.321 }), precision: 5 }], '422205', 'records[0].precision');
  });

  it('refuses a second record of the same point and instant in one request with 409003, whatever the offset', async () => {
    await expectRefused(p.id, [ok(plain, '2026-03-10T08:00:00+08:00'), ok(plain, '2026-03-10T00:00:00Z')], '409003', 'records[1].measured_at');
  });

  it('refuses a record whose point already has data at that instant with 409003', async () => {
    await write(p.id, [ok(plain, at(11))]);
    await expectRefused(p.id, [ok(plain, at(12)), ok(plain, '2026-03-11T00:00:00Z')], '409003', 'records[1].measured_at');
    // a point with an abrupt-change limit is checked before the insert, with the same answer
    await write(p.id, [ok(strict, at(11), { dz: -14 })]);
    await expectRefused(p.id, [ok(strict, at(11), { dz: -14 })], '409003', 'records[0].measured_at');
  });

  it('refuses malformed ids and times with 400004, and records without values with 422101', async () => {
    await expectRefused(p.id, [ok('pt_123', at(13))], '400004', 'records[0].point_id');
    await expectRefused(p.id, [ok(plain, '2026-03-13T08:00:00')], '400004', 'records[0].measured_at');
    await expectRefused(p.id, [ok(plain, '2026-02-30T08:00:00Z')], '400004', 'records[0].measured_at');
    await expectRefused(p.id, [ok(plain, at(13), {})], '422101', 'records[0].values');
    await expectRefused('prj_123', [ok(plain, at(13))], '400004', 'project_id');
  });

  it('refuses malformed dictionary columns with 400001 on records, and names records in dictionary form as in the plain one', async () => {
    const refusedWith = async (records: ReturnType<typeof columns>) => {
      const before = await count();
      const err = await h.data.writeRecords({ projectId: p.id, records }, h.caller).then(
        () => null,
        (e: unknown) => e,
      );
      expect(await count()).toEqual(before);
      return { code: (err as DomainError).code, field: (err as DomainError).field };
    };
    const good = columns([ok(plain, at(13)), ok(plain, at(13, 9))], 'dictionary');
    expect(await refusedWith({ ...good, pointIndex: [0, 1] })).toEqual({ code: '400001', field: 'records' });
    expect(await refusedWith({ ...good, instantIndex: [0] })).toEqual({ code: '400001', field: 'records' });
    expect(await refusedWith({ ...good, pointId: [plain, plain] })).toEqual({ code: '400001', field: 'records' });
    expect(await refusedWith(columns([ok(plain, at(13)), ok(newId('point'), at(13))], 'dictionary'))).toEqual({ code: '404003', field: 'records[1].point_id' });
  });

  it('refuses an inactive point with 422103', async () => {
    await expectRefused(p.id, [ok(inactive, at(13))], '422103', 'records[0].point_id');
  });

  it('refuses more than 1,000 records in one write with 400003 (batches take more)', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ok(plain, new Date(Date.UTC(2026, 3, 1) + i * 1000).toISOString()));
    await expectRefused(p.id, many, '400003', 'records');
  });

  it('is all-or-nothing and names the lowest refused record', async () => {
    const records = [ok(plain, at(14, 1)), ok(plain, at(14, 2), {}), ok(plain, at(14, 3)), ok(newId('point'), at(14, 4))];
    const err = await expectRefused(p.id, records, '422101', 'records[1].values');
    expect(err.code).toBe('422101');
  });

  it('refuses callers without access: 403001 for a non-member, 403002 for a read-only member', async () => {
    const user = { ...h.caller, principalType: 'user' as const, principalId: 'usr_viewer00000000000001', permissions: ['data:write', 'data:read'] };
    await expectRefused(p.id, [ok(plain, at(15))], '403001', 'project_id', user);
    await h.projects.addMember({ projectId: p.id, userId: user.principalId, role: 'viewer' }, h.caller);
    await expectRefused(p.id, [ok(plain, at(15))], '403002', 'project_id', { ...user, requestId: 'req_other' });
  });
});
