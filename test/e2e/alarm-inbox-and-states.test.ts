import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// ADR 0087, 0088 through the HTTPS gateway: the tenant's alarm inbox (GET /alarms) across
// projects with every filter and cursor paging; the open alarms each project carries in
// GET /projects and GET /projects/{id}; and the state of each point in GET /projects/{id}/points
// (status, last_measured_at, stale), all following acknowledgements and clears at once.
describe('alarm inbox and the state of projects and points', () => {
  let t: TestPlatform;
  let key: string;
  const h = (k = key) => ({ 'x-api-key': k });
  const ids: Record<string, string> = {};
  const now = Date.now();
  const minutesAgo = (m: number) => new Date(now - m * 60_000).toISOString();

  const must = async (res: Promise<{ status: number; text: string; body: any }>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`set-up call failed: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const write = (projectId: string, pointId: string, measuredAt: string, dz: number) =>
    must(
      t.api('POST', `/projects/${projectId}/data`, {
        headers: h(),
        body: { records: [{ point_id: pointId, measured_at: measuredAt, values: { dx: 0, dy: 0, dz } }] },
      }),
    );
  const inbox = async (query = '') => must(t.api('GET', `/alarms${query}`, { headers: h() }));
  const pointsOf = (list: { items: { point_id: string }[] }) => list.items.map((a) => a.point_id);
  const project = async (id: string) => must(t.api('GET', `/projects/${id}`, { headers: h() }));
  const listedProject = async (id: string) =>
    (await must(t.api('GET', '/projects?limit=100', { headers: h() }))).items.find((p: { id: string }) => p.id === id);
  const pointState = async (projectId: string, pointId: string) => {
    const p = (await must(t.api('GET', `/projects/${projectId}/points`, { headers: h() }))).items.find((x: { id: string }) => x.id === pointId);
    return { status: p.status, last_measured_at: p.last_measured_at, stale: p.stale };
  };

  beforeAll(async () => {
    // No scheduled stale-data check: a stale point's state must come from its readings and rules
    // alone, not from a stale-data alarm the check may or may not have opened yet.
    t = await startTestPlatform({ MP_ALARM_STALE_CHECK_MS: '0' });
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write']);
    for (const [name, number] of [
      ['dam', 'DAM-1'],
      ['tunnel', 'TUN-1'],
      ['quiet', 'QUI-1'],
    ]) {
      ids[name] = (await must(t.api('POST', '/projects', { headers: h(), body: { name: `Project ${name}`, number, start_date: '2026-01-01' } }))).id;
      await must(t.api('PUT', `/projects/${ids[name]}/status`, { headers: h(), body: { status: 'in_progress' } }));
    }
    const point = async (projectId: string, number: string, alarmRules?: Record<string, number>) =>
      (
        await must(
          t.api('POST', `/projects/${projectId}/points`, {
            headers: h(),
            body: {
              number,
              name: `Point ${number}`,
              sensor_type: 'total_station',
              reference: { x: 100, y: 200, z: 10 },
              thresholds: { warning: 10, alarm: 20 },
              ...(alarmRules ? { alarm_rules: alarmRules } : {}),
            },
          }),
        )
      ).id as string;
    ids.crest = await point(ids.dam!, 'CR-01');
    ids.toe = await point(ids.dam!, 'TO-01');
    ids.ring = await point(ids.tunnel!, 'RG-01');
    // expected every 10 minutes; overdue after 2 × 10 minutes without a reading
    ids.logger = await point(ids.quiet!, 'LG-01', { expected_interval_seconds: 600, stale_factor: 2 });
    ids.fresh = await point(ids.quiet!, 'LG-02', { expected_interval_seconds: 600, stale_factor: 2 });
    ids.silent = await point(ids.quiet!, 'LG-03', { expected_interval_seconds: 600 });

    await write(ids.dam!, ids.crest!, '2026-03-01T08:00:00Z', -26); // alarm
    await write(ids.dam!, ids.toe!, '2026-03-02T08:00:00Z', 12); // warning
    await write(ids.tunnel!, ids.ring!, '2026-03-03T08:00:00Z', 11); // warning
    await write(ids.quiet!, ids.logger!, minutesAgo(25), 1);
    await write(ids.quiet!, ids.fresh!, minutesAgo(5), 1);
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
  });

  it('lists the alarms of every project, newest opened first, with the alarm shape of the project lists', async () => {
    const all = await inbox();
    expect(pointsOf(all)).toEqual([ids.ring, ids.toe, ids.crest]);
    expect(all.has_more).toBe(false);
    expect(all.next_cursor).toBeNull();
    const projectList = await must(t.api('GET', `/projects/${ids.dam}/alarms`, { headers: h() }));
    expect(all.items.slice(1)).toEqual(projectList.items);
    expect(all.items[0]).toMatchObject({ project_id: ids.tunnel, point_id: ids.ring, rule: 'threshold', level: 'warning', status: 'open' });
  });

  it('filters by project, point, level, status and the time opened, and pages with a cursor', async () => {
    expect(pointsOf(await inbox(`?project_id=${ids.dam}`))).toEqual([ids.toe, ids.crest]);
    expect(pointsOf(await inbox(`?project_id=${ids.quiet}`))).toEqual([]);
    expect(pointsOf(await inbox(`?point_id=${ids.crest}`))).toEqual([ids.crest]);
    // a point and a project that do not go together list nothing
    expect(pointsOf(await inbox(`?project_id=${ids.tunnel}&point_id=${ids.crest}`))).toEqual([]);
    expect(pointsOf(await inbox('?level=alarm'))).toEqual([ids.crest]);
    expect(pointsOf(await inbox('?level=warning'))).toEqual([ids.ring, ids.toe]);
    expect(pointsOf(await inbox('?status=cleared'))).toEqual([]);
    expect(pointsOf(await inbox('?from=2020-01-01T00:00:00Z&to=2021-01-01T00:00:00Z'))).toEqual([]);
    const page1 = await inbox('?limit=2');
    expect([pointsOf(page1), page1.has_more]).toEqual([[ids.ring, ids.toe], true]);
    const page2 = await inbox(`?limit=2&cursor=${encodeURIComponent(page1.next_cursor)}`);
    expect([pointsOf(page2), page2.has_more, page2.next_cursor]).toEqual([[ids.crest], false, null]);
  });

  it('refuses bad filters with the catalogue codes and a caller without data:read with 401004', async () => {
    expectError(await t.api('GET', '/alarms?status=closed', { headers: h() }), 400001, 'status');
    expectError(await t.api('GET', '/alarms?level=critical', { headers: h() }), 400001, 'level');
    expectError(await t.api('GET', '/alarms?project_id=42', { headers: h() }), 400004, 'project_id');
    expectError(await t.api('GET', '/alarms?point_id=42', { headers: h() }), 400004, 'point_id');
    expectError(await t.api('GET', '/alarms?from=yesterday', { headers: h() }), 400004, 'from');
    expectError(await t.api('GET', '/alarms?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', { headers: h() }), 422204, 'to');
    expectError(await t.api('GET', '/alarms?cursor=nonsense', { headers: h() }), 400004, 'cursor');
    expectError(await t.api('GET', '/alarms?limit=101', { headers: h() }), 400003, 'limit');
    expectError(await t.api('GET', '/alarms', { headers: h(await t.apiKey(['project:read'])) }), 401004, null);
    // an unknown project is not told apart from one the caller cannot read: nothing is listed
    expect((await inbox('?project_id=prj_00000000000000000000')).items).toEqual([]);
  });

  it('carries each project’s open alarms by level in the list and in the project, and follows acknowledgements and clears', async () => {
    const dam = { count: 2, unacknowledged: 2, by_level: { warning: 1, alarm: 1, action: 0 }, highest_level: 'alarm' };
    expect((await project(ids.dam!)).open_alarms).toEqual(dam);
    expect((await listedProject(ids.dam!)).open_alarms).toEqual(dam);
    expect((await listedProject(ids.tunnel!)).open_alarms).toEqual({
      count: 1,
      unacknowledged: 1,
      by_level: { warning: 1, alarm: 0, action: 0 },
      highest_level: 'warning',
    });
    expect((await project(ids.quiet!)).open_alarms).toEqual({
      count: 0,
      unacknowledged: 0,
      by_level: { warning: 0, alarm: 0, action: 0 },
      highest_level: null,
    });

    const [crestAlarm] = (await inbox(`?point_id=${ids.crest}`)).items;
    await must(t.api('POST', `/alarms/${crestAlarm.alarm_id}/acknowledge`, { headers: h(), body: { comment: 'crew on site' } }));
    expect((await project(ids.dam!)).open_alarms).toEqual({ ...dam, unacknowledged: 1 });
    expect(pointsOf(await inbox('?status=open'))).toEqual([ids.ring, ids.toe]);
    expect(pointsOf(await inbox('?status=acknowledged'))).toEqual([ids.crest]);

    const [toeAlarm] = (await inbox(`?point_id=${ids.toe}`)).items;
    await must(t.api('POST', `/alarms/${toeAlarm.alarm_id}/clear`, { headers: h(), body: {} }));
    expect((await listedProject(ids.dam!)).open_alarms).toEqual({
      count: 1,
      unacknowledged: 0,
      by_level: { warning: 0, alarm: 1, action: 0 },
      highest_level: 'alarm',
    });
    expect(pointsOf(await inbox('?status=cleared'))).toEqual([ids.toe]);
  });

  it('gives each listed point its status now, its latest reading and whether it is overdue', async () => {
    // A reading back under the limits: the alarm stays active (three are needed to clear it), so
    // the point is still at its alarm's level, not at the reading's.
    await write(ids.dam!, ids.crest!, '2026-03-04T08:00:00Z', 1);
    expect(await pointState(ids.dam!, ids.crest!)).toEqual({ status: 'alarm', last_measured_at: '2026-03-04T08:00:00.000Z', stale: false });
    // the toe's alarm was cleared by hand: its latest reading's status is what is left
    expect(await pointState(ids.dam!, ids.toe!)).toEqual({ status: 'warning', last_measured_at: '2026-03-02T08:00:00.000Z', stale: false });
    // 25 minutes without a reading, expected every 10 with factor 2: overdue; 5 minutes: not
    expect(await pointState(ids.quiet!, ids.logger!)).toEqual({
      status: 'normal',
      last_measured_at: new Date(Date.parse(minutesAgo(25))).toISOString(),
      stale: true,
    });
    expect(await pointState(ids.quiet!, ids.fresh!)).toEqual({
      status: 'normal',
      last_measured_at: new Date(Date.parse(minutesAgo(5))).toISOString(),
      stale: false,
    });
    // never reported: no status, no time, and not judged stale (the stale-data rule starts at the first reading)
    expect(await pointState(ids.quiet!, ids.silent!)).toEqual({ status: null, last_measured_at: null, stale: false });
    // an invalid reading is not the latest one
    const [{ id: dataId }] = await queryTestDatabase<{ id: string }>(
      t.db.url,
      "SELECT id FROM monitoring_data.data_records WHERE point_id = $1 AND measured_at = '2026-03-04T08:00:00Z'",
      [ids.crest],
    );
    await must(t.api('PATCH', `/data/${dataId}`, { headers: h(), body: { quality_flag: 'invalid' } }));
    expect((await pointState(ids.dam!, ids.crest!)).last_measured_at).toBe('2026-03-01T08:00:00.000Z');
  });

  it('leaves the alarm fields null for a caller that reads projects but not data, and still answers the lists', async () => {
    const projectsOnly = await t.apiKey(['project:read']);
    const listed = await must(t.api('GET', '/projects?limit=100', { headers: h(projectsOnly) }));
    expect(listed.items.map((p: { open_alarms: unknown }) => p.open_alarms)).toEqual([null, null, null]);
    expect((await must(t.api('GET', `/projects/${ids.dam}`, { headers: h(projectsOnly) }))).open_alarms).toBeNull();
    const points = await must(t.api('GET', `/projects/${ids.dam}/points`, { headers: h(projectsOnly) }));
    expect(points.items.map((p: Record<string, unknown>) => [p.status, p.last_measured_at, p.stale])).toEqual([
      [null, null, null],
      [null, null, null],
    ]);
  });
});
