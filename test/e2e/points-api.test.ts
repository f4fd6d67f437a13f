import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Monitoring points over HTTPS: the API shape (reference in metres, thresholds in millimetres),
// body validation codes, 409002, 422103/422104/422201/422204, PATCH with partial thresholds and
// nulls, If-Match, filters, 404003.
describe('monitoring points over the API', () => {
  let t: TestPlatform;
  let key: string;
  let projectId: string;
  let seq = 0;
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const body = (over: Record<string, unknown> = {}) => ({
    number: `JC-${++seq}`,
    name: 'Crown settlement',
    sensor_type: 'total_station',
    reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
    thresholds: { warning: 20, alarm: 30 },
    ...over,
  });
  const post = (over: Record<string, unknown> = {}, project = projectId) => t.api('POST', `/projects/${project}/points`, { headers: h(), body: body(over) });
  const count = async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM projects.points'))[0]!.n;

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write']);
    const p = await t.api('POST', '/projects', {
      headers: h(),
      body: { name: 'Riverside excavation', number: 'RX-1', bounds: { min_x: 3e6, max_x: 4e6, min_y: 4e5, max_y: 6e5, min_z: -100, max_z: 500 } },
    });
    projectId = p.body.data.id;
  });
  afterAll(() => t?.stop());

  it('creates a point and shows it in the API shape', async () => {
    const dev = (await t.api('POST', '/devices', { headers: h(), body: { serial_number: 'TS-1', model: 'Leica TM60', type: 'total_station' } })).body.data;
    const res = await post({ number: 'JC-01', abrupt_change_limit: 15, precision: 0.5, device_id: dev.id });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^pt_[0-9a-z]{20}$/),
      project_id: projectId,
      number: 'JC-01',
      name: 'Crown settlement',
      sensor_type: 'total_station',
      reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
      thresholds: { warning: 20, alarm: 30 },
      abrupt_change_limit: 15,
      precision: 0.5,
      device_id: dev.id,
      active: true,
      description: null,
      // the platform's alarm rules apply (README "Alarms")
      alarm_rules: null,
      // a total station's levels are its thresholds; trigger levels are for instrument channels
      trigger_levels: [],
      derived_channels: [],
      created_at: res.body.data.created_at,
      updated_at: res.body.data.created_at,
      version: 1,
    });
    expect((await t.api('GET', `/points/${res.body.data.id}`, { headers: h() })).body.data).toEqual(res.body.data);
  });

  it.each([
    [{ thresholds: { warning: 20 } }, 422101, 'thresholds.alarm'],
    [{ reference: undefined }, 422101, 'reference'],
    [{ reference: { x: '1', y: 2, z: 3 } }, 422102, 'reference.x'],
    [{ sensor_type: 'radar' }, 422103, 'sensor_type'],
    [{ thresholds: { warning: 30, alarm: 20 } }, 422204, 'thresholds.warning'],
    [{ device_id: 'dev_zzzzzzzzzzzzzzzzzzzz' }, 422104, 'device_id'],
    [{ reference: { x: 100, y: 512345.6, z: 45.3 } }, 422201, 'reference.x'],
    [{ active: 'yes' }, 422102, 'active'],
  ])('refuses %j with %i on %s and stores nothing', async (over, code, field) => {
    const before = await count();
    expectError(await post(over), code, field);
    expect(await count()).toBe(before);
  });

  it('refuses a duplicate number within the project with 409002', async () => {
    await post({ number: 'DUP' });
    const before = await count();
    expectError(await post({ number: 'DUP' }), 409002, 'number');
    expect(await count()).toBe(before);
  });

  it('patches part of the thresholds, clears with null, checks If-Match, and deletes', async () => {
    const p = (await post({ precision: 1 })).body.data;
    expectError(await t.api('PATCH', `/points/${p.id}`, { headers: h(), body: { thresholds: { warning: 35 } } }), 422204, 'thresholds.warning');
    const u = await t.api('PATCH', `/points/${p.id}`, {
      headers: h({ 'if-match': '"1"' }),
      body: { thresholds: { alarm: 50 }, precision: null, active: false },
    });
    expect(u.body.data).toMatchObject({ thresholds: { warning: 20, alarm: 50 }, precision: null, active: false, version: 2 });
    expectError(await t.api('PATCH', `/points/${p.id}`, { headers: h({ 'if-match': '"1"' }), body: { name: 'Stale' } }), 409004, 'version');
    expectError(await t.api('DELETE', `/points/${p.id}`, { headers: h(), body: { version: 1 } }), 409004, 'version');
    expect((await t.api('DELETE', `/points/${p.id}`, { headers: h() })).body.data).toMatchObject({ id: p.id, deleted: true });
    expectError(await t.api('GET', `/points/${p.id}`, { headers: h() }), 404003, 'point_id');
    expectError(await t.api('GET', '/points/JC-01', { headers: h() }), 400004, 'point_id');
  });

  it('filters by sensor_type, active and q', async () => {
    const p = (await t.api('POST', '/projects', { headers: h(), body: { name: 'Lists', number: 'RX-2' } })).body.data.id;
    const a = (await post({ number: 'GN-1', name: 'GNSS north', sensor_type: 'gnss' }, p)).body.data;
    const b = (await post({ number: 'LV-1', name: 'Level east', sensor_type: 'level', active: false }, p)).body.data;
    const ids = async (qs: string) => (await t.api('GET', `/projects/${p}/points?${qs}`, { headers: h() })).body.data.items.map((x: { id: string }) => x.id);
    expect(await ids('sensor_type=gnss')).toEqual([a.id]);
    expect(await ids('active=false')).toEqual([b.id]);
    expect(await ids('active=true&q=north')).toEqual([a.id]);
    expectError(await t.api('GET', `/projects/${p}/points?sensor_type=sonar`, { headers: h() }), 422103, 'sensor_type');
    expectError(await t.api('GET', '/projects/prj_zzzzzzzzzzzzzzzzzzzz/points', { headers: h() }), 404001, 'project_id');
  });

  it('answers 404003 for a point of a deleted project on the point, its data and its series alike', async () => {
    const reader = { 'x-api-key': await t.apiKey(['project:read', 'project:write', 'data:read']) };
    const p = (await t.api('POST', '/projects', { headers: reader, body: { name: 'Short-lived pit', number: 'SLP-1' } })).body.data;
    const pt = (await t.api('POST', `/projects/${p.id}/points`, { headers: reader, body: body() })).body.data;
    // read once while the project exists, so the point's project is known (and cached) by the data service
    expect((await t.api('GET', `/points/${pt.id}/series`, { headers: reader })).status).toBe(200);
    expect((await t.api('DELETE', `/projects/${p.id}`, { headers: reader })).status).toBe(200);
    expectError(await t.api('GET', `/points/${pt.id}`, { headers: reader }), 404003, 'point_id');
    expectError(await t.api('GET', `/points/${pt.id}/series`, { headers: reader }), 404003, 'point_id');
    expectError(await t.api('GET', `/points/${pt.id}/data`, { headers: reader }), 404003, 'point_id');
    expectError(await t.api('GET', `/projects/${projectId}/data?point_id=${pt.id}`, { headers: reader }), 404003, 'point_id');
  });
});
