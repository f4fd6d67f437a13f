import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The tenant-wide alarm inbox and the alarm counts of project and point lists follow project
// membership exactly as the projects' own data does: a user who is not a member of a project
// never sees its alarms, its counts or its points' states, whichever filter names it (its id, one
// of its points, its alarms' times), and loses them the moment the membership goes.
describe('the alarm inbox reaches only the projects the caller reads', () => {
  let t: TestPlatform;
  let admin: Record<string, string>;
  const ids: Record<string, string> = {};
  const users: Record<string, { id: string; h: Record<string, string> }> = {};

  const must = async (res: Promise<{ status: number; text: string; body: any }>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`set-up call failed: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const inboxOf = async (h: Record<string, string>, query = '') => {
    const res = await t.api('GET', `/alarms${query}`, { headers: h });
    expect(res.status).toBe(200);
    return res.body.data.items.map((a: { point_id: string }) => a.point_id);
  };
  const makeUser = async (username: string, permissions: string[]) => {
    const password = `${username} pass phrase`;
    const created = await must(t.api('POST', '/users', { headers: admin, body: { username, password, name: username, permissions } }));
    const login = await must(t.api('POST', '/auth/login', { body: { username, password, grant_type: 'password' } }));
    return { id: created.id as string, h: { authorization: `Bearer ${login.access_token}` } };
  };

  beforeAll(async () => {
    t = await startTestPlatform({ MP_ALARM_STALE_CHECK_MS: '0' });
    admin = { 'x-api-key': await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write']) };
    for (const name of ['mine', 'theirs']) {
      ids[name] = (await must(t.api('POST', '/projects', { headers: admin, body: { name: `Project ${name}`, number: name, start_date: '2026-01-01' } }))).id;
      await must(t.api('PUT', `/projects/${ids[name]}/status`, { headers: admin, body: { status: 'in_progress' } }));
      const point = await must(
        t.api('POST', `/projects/${ids[name]}/points`, {
          headers: admin,
          body: {
            number: `${name}-1`,
            name: `${name} 1`,
            sensor_type: 'total_station',
            reference: { x: 1, y: 2, z: 3 },
            thresholds: { warning: 10, alarm: 20 },
          },
        }),
      );
      ids[`${name}Point`] = point.id;
      await must(
        t.api('POST', `/projects/${ids[name]}/data`, {
          headers: admin,
          body: { records: [{ point_id: point.id, measured_at: '2026-03-01T08:00:00Z', values: { dx: 0, dy: 0, dz: 25 } }] },
        }),
      );
    }
    const everything = ['project:read', 'data:read', 'data:write'];
    users.member = await makeUser('inbox.member', everything);
    users.outsider = await makeUser('inbox.outsider', everything);
    await must(t.api('POST', `/projects/${ids.mine}/members`, { headers: admin, body: { user_id: users.member.id, role: 'viewer' } }));
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
  });

  it('shows a user outside every project nothing: no alarm, whichever project or point a filter names', async () => {
    const h = users.outsider!.h;
    expect(await inboxOf(admin)).toEqual([ids.theirsPoint, ids.minePoint]);
    expect(await inboxOf(h)).toEqual([]);
    expect(await inboxOf(h, `?project_id=${ids.theirs}`)).toEqual([]);
    expect(await inboxOf(h, `?point_id=${ids.theirsPoint}`)).toEqual([]);
    expect(await inboxOf(h, '?status=open&level=alarm&from=2026-01-01T00:00:00Z')).toEqual([]);
    // The projects themselves stay closed, and the lists carry none of their counts.
    expect((await must(t.api('GET', '/projects', { headers: h }))).items).toEqual([]);
    expectError(await t.api('GET', `/projects/${ids.theirs}`, { headers: h }), 403001, 'project_id');
    expectError(await t.api('GET', `/projects/${ids.theirs}/points`, { headers: h }), 403001, 'project_id');
  });

  it('shows a member only its own project’s alarms; filters naming another project or its point reveal nothing', async () => {
    const h = users.member!.h;
    expect(await inboxOf(h)).toEqual([ids.minePoint]);
    expect(await inboxOf(h, `?project_id=${ids.mine}`)).toEqual([ids.minePoint]);
    expect(await inboxOf(h, `?project_id=${ids.theirs}`)).toEqual([]);
    expect(await inboxOf(h, `?point_id=${ids.theirsPoint}`)).toEqual([]);
    // the answer for another project's id is the answer for a project that does not exist
    const unknown = await t.api('GET', '/alarms?project_id=prj_00000000000000000000', { headers: h });
    const other = await t.api('GET', `/alarms?project_id=${ids.theirs}`, { headers: h });
    expect([other.status, other.body.data]).toEqual([unknown.status, unknown.body.data]);
    // Paging past its own alarms never reaches another project's.
    const first = await t.api('GET', '/alarms?limit=1', { headers: h });
    expect([first.body.data.has_more, first.body.data.next_cursor]).toEqual([false, null]);

    const projects = (await must(t.api('GET', '/projects', { headers: h }))).items;
    expect(projects.map((p: { id: string; open_alarms: { count: number } }) => [p.id, p.open_alarms.count])).toEqual([[ids.mine, 1]]);
    const points = (await must(t.api('GET', `/projects/${ids.mine}/points`, { headers: h }))).items;
    expect(points.map((p: { status: string }) => p.status)).toEqual(['alarm']);
  });

  it('takes the alarms away with the membership, and a refused acknowledgement from the inbox changes nothing', async () => {
    const h = users.member!.h;
    const [theirs] = (await must(t.api('GET', `/alarms?project_id=${ids.theirs}`, { headers: admin }))).items;
    expectError(
      await t.api('POST', `/alarms/${theirs.alarm_id}/acknowledge`, { headers: users.outsider!.h, body: { comment: 'not mine' } }),
      403001,
      'project_id',
    );
    expect((await must(t.api('GET', `/alarms/${theirs.alarm_id}`, { headers: admin }))).status).toBe('open');

    await must(t.api('DELETE', `/projects/${ids.mine}/members/${users.member!.id}`, { headers: admin }));
    expect(await inboxOf(h)).toEqual([]);
    expect(await inboxOf(h, `?project_id=${ids.mine}`)).toEqual([]);
    expect((await must(t.api('GET', '/projects', { headers: h }))).items).toEqual([]);
  });

  it('keeps the sandbox apart: a sandbox caller of the same tenant sees none of the live alarms', async () => {
    const sandboxKey = await t.apiKey(['project:read', 'data:read'], { sandbox: true });
    const res = await t.api('GET', '/alarms', { headers: { 'x-api-key': sandboxKey }, sandbox: true });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([]);
    expect((await t.api('GET', `/alarms?project_id=${ids.mine}`, { headers: { 'x-api-key': sandboxKey }, sandbox: true })).body.data.items).toEqual([]);
  });
});
