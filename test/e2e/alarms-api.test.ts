import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Alarms (ADR 0024) through the HTTPS gateway: an alarm opened by the first breaking reading,
// escalated and updated (not duplicated) by the next ones, acknowledged and cleared by people with
// who and when, cleared by itself after three readings back to normal (the default), with the
// alarm.acknowledged / alarm.cleared extensions delivered to a webhook — and every refusal code.
describe('alarms through the gateway', () => {
  let t: TestPlatform;
  let key: string;
  let receiver: HttpsReceiver;
  let projectId: string;
  let point: string;
  let other: string;
  let alarmId: string;
  const h = (k = key) => ({ 'x-api-key': k });
  const write = async (pointId: string, measuredAt: string, dz: number) => {
    const res = await t.api('POST', `/projects/${projectId}/data`, {
      headers: h(),
      body: { records: [{ point_id: pointId, measured_at: measuredAt, values: { dx: 0, dy: 0, dz } }] },
    });
    expect(res.status).toBe(200);
    return res.body.data.records[0].data_id as string;
  };
  const alarms = async (query = '') => {
    const res = await t.api('GET', `/projects/${projectId}/alarms${query}`, { headers: h() });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const eventsOf = (type: string) => receiver.requests.filter((r) => r.json?.event_type === type);

  beforeAll(async () => {
    // The stale-data check runs every 200 ms instead of every minute (the default), so the
    // stale-data alarm below is found without the test waiting a minute.
    t = await startTestPlatform({ MP_ALARM_STALE_CHECK_MS: '200' });
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write']);
    receiver = await startHttpsReceiver();
    const hook = await t.api('POST', '/webhooks', {
      headers: h(),
      body: {
        name: 'alarms',
        url: receiver.url,
        events: ['data.abnormal', 'alarm.acknowledged', 'alarm.cleared'],
        retry_policy: { max_retries: 3, retry_interval: 1 },
        active: true,
      },
    });
    expect(hook.status).toBe(200);
    projectId = (await t.api('POST', '/projects', { headers: h(), body: { name: 'Dam crest', number: 'DAM-1', start_date: '2026-01-01' } })).body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } })).status).toBe(200);
    const pt = (number: string) =>
      t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: {
          number,
          name: `Crest ${number}`,
          sensor_type: 'total_station',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          thresholds: { warning: 10, alarm: 20 },
        },
      });
    point = (await pt('CR-01')).body.data.id;
    other = (await pt('CR-02')).body.data.id;
    expect(point).toMatch(/^pt_/);
  });

  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('opens one alarm at the first breaking reading and escalates it from warning to alarm without a second one', async () => {
    await write(point, '2026-03-01T08:00:00Z', 1);
    expect((await alarms()).items).toEqual([]);
    const first = await write(point, '2026-03-02T08:00:00Z', -12);
    const last = await write(point, '2026-03-03T08:00:00Z', -26);
    await write(point, '2026-03-04T08:00:00Z', -14);
    const list = await alarms();
    expect(list).toEqual({ items: [expect.any(Object)], next_cursor: null, has_more: false });
    const a = list.items[0];
    alarmId = a.alarm_id;
    expect(a).toEqual({
      alarm_id: expect.stringMatching(/^alm_[0-9a-z]{20}$/),
      project_id: projectId,
      point_id: point,
      rule: 'threshold',
      level: 'alarm',
      status: 'open',
      reason: 'threshold: dz -14 mm reached the warning threshold of 10 mm',
      threshold: { warning: 10, alarm: 20 },
      value: 14,
      first_data_id: first,
      last_data_id: expect.stringMatching(/^dat_/),
      last_measured_at: '2026-03-04T08:00:00.000Z',
      reading_count: 3,
      normal_count: 0,
      // the channel that crossed the level, and the run of readings that opened the alarm (docs/instruments.md)
      channel: 'dz',
      first_over: { data_id: first, measured_at: '2026-03-02T08:00:00.000Z', count: 1 },
      opened_at: expect.any(String),
      updated_at: expect.any(String),
      acknowledged: null,
      cleared: null,
      version: 3,
    });
    expect(last).toMatch(/^dat_/);
    const one = await t.api('GET', `/alarms/${alarmId}`, { headers: h() });
    expect(one.status).toBe(200);
    expect(one.body.data.history.map((x: { action: string; level: string; by: unknown; data_id: string }) => [x.action, x.level, x.by, x.data_id])).toEqual([
      ['opened', 'warning', null, first],
      ['escalated', 'alarm', null, last],
    ]);
  });

  it('filters by status, level, point and time, and pages with a cursor', async () => {
    // a second alarm, on the other point
    await write(other, '2026-03-05T08:00:00Z', 11);
    expect((await alarms()).items.map((a: { point_id: string }) => a.point_id)).toEqual([other, point]);
    expect((await alarms('?level=alarm')).items.map((a: { point_id: string }) => a.point_id)).toEqual([point]);
    expect((await alarms('?level=warning')).items.map((a: { point_id: string }) => a.point_id)).toEqual([other]);
    expect((await alarms(`?point_id=${other}`)).items).toHaveLength(1);
    expect((await alarms('?status=cleared')).items).toEqual([]);
    expect((await alarms('?from=2020-01-01T00:00:00Z&to=2021-01-01T00:00:00Z')).items).toEqual([]);
    const page1 = await alarms('?limit=1');
    expect(page1.has_more).toBe(true);
    const page2 = await alarms(`?limit=1&cursor=${page1.next_cursor}`);
    expect([page1.items[0].point_id, page2.items[0].point_id, page2.has_more, page2.next_cursor]).toEqual([other, point, false, null]);
  });

  it('records who acknowledged and cleared and when, refuses steps the status does not allow with 409010, and sends the extension events', async () => {
    const ack = await t.api('POST', `/alarms/${alarmId}/acknowledge`, { headers: h(), body: { comment: 'crew on site' } });
    expect(ack.status).toBe(200);
    const keyId = (await queryTestDatabase<{ id: string }>(t.db.url, 'SELECT id FROM identity.api_keys ORDER BY created_at LIMIT 1'))[0]!.id;
    expect(ack.body.data).toMatchObject({
      status: 'acknowledged',
      acknowledged: { at: expect.any(String), by: { principal_id: keyId, principal_type: 'api_key' }, comment: 'crew on site' },
      cleared: null,
    });
    expectError(await t.api('POST', `/alarms/${alarmId}/acknowledge`, { headers: h(), body: {} }), 409010, 'status');
    const cleared = await t.api('POST', `/alarms/${alarmId}/clear`, { headers: h(), body: { comment: 'grouted' } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({
      status: 'cleared',
      cleared: { by: { principal_id: keyId, principal_type: 'api_key' }, automatic: false, comment: 'grouted' },
    });
    expect(cleared.body.data.history.map((x: { action: string; comment: string | null }) => [x.action, x.comment])).toEqual([
      ['opened', null],
      ['escalated', null],
      ['acknowledged', 'crew on site'],
      ['cleared', 'grouted'],
    ]);
    const before = await queryTestDatabase(t.db.url, 'SELECT status, version FROM monitoring_data.alarms WHERE id = $1', [alarmId]);
    expectError(await t.api('POST', `/alarms/${alarmId}/clear`, { headers: h(), body: {} }), 409010, 'status');
    expectError(await t.api('POST', `/alarms/${alarmId}/acknowledge`, { headers: h(), body: {} }), 409010, 'status');
    expect(await queryTestDatabase(t.db.url, 'SELECT status, version FROM monitoring_data.alarms WHERE id = $1', [alarmId])).toEqual(before);

    await waitUntil(() => eventsOf('alarm.acknowledged').length === 1 && eventsOf('alarm.cleared').length === 1);
    const by = { principal_type: 'api_key', principal_id: keyId };
    const common = {
      alarm_id: alarmId,
      project_id: projectId,
      point_id: point,
      rule: 'threshold',
      level: 'alarm',
      channel: 'dz',
      reason: 'threshold: dz -14 mm reached the warning threshold of 10 mm',
      at: expect.any(String),
    };
    expect(eventsOf('alarm.acknowledged')[0]!.json.data).toEqual({ ...common, status: 'acknowledged', by, automatic: false, comment: 'crew on site' });
    expect(eventsOf('alarm.cleared')[0]!.json.data).toEqual({ ...common, status: 'cleared', by, automatic: false, comment: 'grouted' });
  });

  it('opens a new alarm at the next breach and clears it by itself after three readings back under the thresholds', async () => {
    await write(point, '2026-03-06T08:00:00Z', 25);
    const open = (await alarms(`?point_id=${point}&status=open`)).items;
    expect(open).toHaveLength(1);
    expect(open[0].alarm_id).not.toBe(alarmId);
    await write(point, '2026-03-07T08:00:00Z', 2);
    await write(point, '2026-03-08T08:00:00Z', 1);
    expect((await t.api('GET', `/alarms/${open[0].alarm_id}`, { headers: h() })).body.data).toMatchObject({ status: 'open', normal_count: 2 });
    await write(point, '2026-03-09T08:00:00Z', 0.5);
    const done = (await t.api('GET', `/alarms/${open[0].alarm_id}`, { headers: h() })).body.data;
    expect(done).toMatchObject({ status: 'cleared', normal_count: 3, cleared: { at: expect.any(String), by: null, automatic: true, comment: null } });
    expect(done.history.at(-1)).toMatchObject({ action: 'cleared', by: null, reason: '3 readings back within the limits (clears after 3)' });
    await waitUntil(() => eventsOf('alarm.cleared').length === 2);
    expect(eventsOf('alarm.cleared')[1]!.json.data).toMatchObject({ alarm_id: open[0].alarm_id, status: 'cleared', by: null, automatic: true });
    // each opening breach reached the webhook as data.abnormal
    await waitUntil(() => eventsOf('data.abnormal').length === 5);
    expect(eventsOf('data.abnormal').map((e) => e.json.data.alert_level)).toEqual(['warning', 'alarm', 'warning', 'warning', 'alarm']);
  });

  it("takes a point's own alarm_rules (shown on the point, checked by the projects service) and clears after its number of readings", async () => {
    const bad = await t.api('POST', `/projects/${projectId}/points`, {
      headers: h(),
      body: {
        number: 'CR-X',
        name: 'Crest X',
        sensor_type: 'level',
        reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
        thresholds: { warning: 10, alarm: 20 },
        alarm_rules: { clear_after_readings: 0 },
      },
    });
    expectError(bad, 400003, 'alarm_rules.clear_after_readings');
    expectError(
      await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: {
          number: 'CR-X',
          name: 'Crest X',
          sensor_type: 'level',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          thresholds: { warning: 10, alarm: 20 },
          alarm_rules: { stale_factor: 'three' },
        },
      }),
      422102,
      'alarm_rules.stale_factor',
    );
    const created = await t.api('POST', `/projects/${projectId}/points`, {
      headers: h(),
      body: {
        number: 'CR-03',
        name: 'Crest CR-03',
        sensor_type: 'level',
        reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
        thresholds: { warning: 10, alarm: 20 },
        alarm_rules: { clear_after_readings: 1 },
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.data.alarm_rules).toEqual({
      clear_after_readings: 1,
      rate_warning_mm_per_day: null,
      rate_alarm_mm_per_day: null,
      rate_window_hours: null,
      expected_interval_seconds: null,
      stale_factor: null,
    });
    const own = created.body.data.id as string;
    await write(own, '2026-03-01T08:00:00Z', 15);
    await write(own, '2026-03-02T08:00:00Z', 1);
    expect((await alarms(`?point_id=${own}`)).items.map((a: { status: string }) => a.status)).toEqual(['cleared']);
    const patched = await t.api('PATCH', `/points/${own}`, { headers: h(), body: { alarm_rules: null } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.alarm_rules).toBeNull();
  });

  it('delivers data.abnormal of a rate alarm and of a stale-data alarm (with the point’s last record) to the webhook', async () => {
    const make = async (number: string, rules: Record<string, number>) =>
      (
        await t.api('POST', `/projects/${projectId}/points`, {
          headers: h(),
          body: {
            number,
            name: `Slope ${number}`,
            sensor_type: 'gnss',
            reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
            thresholds: { warning: 50, alarm: 80 },
            alarm_rules: rules,
          },
        })
      ).body.data.id as string;
    const rated = await make('SL-R', { rate_warning_mm_per_day: 2, rate_alarm_mm_per_day: 5 });
    await write(rated, '2026-04-01T00:00:00Z', 0);
    const rising = await write(rated, '2026-04-02T00:00:00Z', 3.2);
    await waitUntil(() => eventsOf('data.abnormal').some((e) => e.json.data.records[0].point_id === rated));
    expect(eventsOf('data.abnormal').find((e) => e.json.data.records[0].point_id === rated)!.json.data).toEqual({
      project_id: projectId,
      project_name: 'Dam crest',
      alert_level: 'warning',
      records: [
        {
          data_id: rising,
          point_id: rated,
          point_name: 'Slope SL-R',
          sensor_type: 'gnss',
          measured_at: '2026-04-02T00:00:00Z',
          values: { dx: 0, dy: 0, dz: 3.2 },
          status: 'warning',
          threshold: { warning: 2, alarm: 5 },
          reason: 'rate 3.2 mm/day over 24 h exceeds 2 mm/day (dz, warning)',
        },
      ],
    });
    // expected hourly; its only reading is from April, so the scheduled check finds it long overdue
    const quiet = await make('SL-Q', { expected_interval_seconds: 3600, stale_factor: 2 });
    const last = await write(quiet, '2026-04-01T06:00:00+08:00', 1.5);
    await waitUntil(() => eventsOf('data.abnormal').some((e) => e.json.data.records[0].point_id === quiet));
    const stale = eventsOf('data.abnormal').find((e) => e.json.data.records[0].point_id === quiet)!.json.data;
    expect(stale).toEqual({
      project_id: projectId,
      project_name: 'Dam crest',
      alert_level: 'alarm',
      records: [
        {
          data_id: last,
          point_id: quiet,
          point_name: 'Slope SL-Q',
          sensor_type: 'gnss',
          measured_at: '2026-04-01T06:00:00+08:00',
          values: { dx: 0, dy: 0, dz: 1.5 },
          status: 'alarm',
          threshold: { warning: 50, alarm: 80 },
          reason: expect.stringMatching(/^stale: no reading for \d+ d( \d+ (h|min|s))?, expected every 1 h \(alarm after 4 h\)$/),
        },
      ],
    });
    expect((await alarms(`?point_id=${quiet}`)).items.map((a: { rule: string; status: string }) => `${a.rule}:${a.status}`)).toEqual(['stale:open']);
  });

  it('refuses malformed and unknown ids, bad filters and bodies, missing permissions and other environments with the catalogue codes', async () => {
    expectError(await t.api('GET', '/alarms/alm_bad', { headers: h() }), 400004, 'alarm_id');
    expectError(await t.api('GET', '/alarms/alm_00000000000000000000', { headers: h() }), 404014, 'alarm_id');
    expectError(await t.api('POST', '/alarms/alm_00000000000000000000/acknowledge', { headers: h(), body: {} }), 404014, 'alarm_id');
    expectError(await t.api('GET', `/alarms/${'a'.repeat(65)}`, { headers: h() }), 400003, 'alarm_id');
    expectError(await t.api('GET', `/projects/${projectId}/alarms?status=closed`, { headers: h() }), 400001, 'status');
    expectError(await t.api('GET', `/projects/${projectId}/alarms?level=critical`, { headers: h() }), 400001, 'level');
    expectError(await t.api('GET', `/projects/${projectId}/alarms?point_id=42`, { headers: h() }), 400004, 'point_id');
    expectError(await t.api('GET', `/projects/${projectId}/alarms?from=yesterday`, { headers: h() }), 400004, 'from');
    expectError(await t.api('GET', `/projects/${projectId}/alarms?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z`, { headers: h() }), 422204, 'to');
    expectError(await t.api('GET', `/projects/${projectId}/alarms?cursor=nonsense`, { headers: h() }), 400004, 'cursor');
    expectError(await t.api('GET', `/projects/${projectId}/alarms?limit=101`, { headers: h() }), 400003, 'limit');
    expectError(await t.api('GET', '/projects/prj_00000000000000000000/alarms', { headers: h() }), 404001, 'project_id');
    expectError(await t.api('GET', '/projects/nope/alarms', { headers: h() }), 400004, 'project_id');
    expectError(await t.api('POST', `/alarms/${alarmId}/clear`, { headers: h(), body: { comment: 42 } }), 422102, 'comment');
    expectError(await t.api('POST', `/alarms/${alarmId}/clear`, { headers: h(), body: { comment: 'x'.repeat(501) } }), 400003, 'comment');
    expectError(await t.api('POST', `/alarms/${alarmId}/clear`, { headers: h(), rawBody: '{"comment":' }), 400002, null);
    const reader = await t.apiKey(['data:read']);
    const projectsOnly = await t.apiKey(['project:read']);
    expectError(await t.api('GET', `/projects/${projectId}/alarms`, { headers: h(projectsOnly) }), 401004, null);
    expectError(await t.api('GET', `/alarms/${alarmId}`, { headers: h(projectsOnly) }), 401004, null);
    expect((await t.api('GET', `/alarms/${alarmId}`, { headers: h(reader) })).status).toBe(200);
    expectError(await t.api('POST', `/alarms/${alarmId}/acknowledge`, { headers: h(reader), body: {} }), 401004, null);
    expectError(await t.api('POST', `/alarms/${alarmId}/clear`, { headers: h(reader), body: {} }), 401004, null);
    // the sandbox holds no live alarm: the same id is unknown there, never revealed
    const sandboxKey = await t.apiKey(['data:read', 'data:write'], { sandbox: true });
    expectError(await t.api('GET', `/alarms/${alarmId}`, { headers: h(sandboxKey), sandbox: true }), 404014, 'alarm_id');
    expectError(await t.api('POST', `/alarms/${alarmId}/clear`, { headers: h(sandboxKey), sandbox: true, body: {} }), 404014, 'alarm_id');
  });

  it('403001 for a user with data permissions who is not a member, 403002 for a read-only member acknowledging', async () => {
    const make = async (username: string) => {
      const res = await t.api('POST', '/users', {
        headers: h(),
        body: { username, password: `${username} password`, name: username, permissions: ['data:read', 'data:write', 'project:read'] },
      });
      expect(res.status).toBe(200);
      const login = await t.api('POST', '/auth/login', { body: { username, password: `${username} password`, grant_type: 'password' } });
      return { id: res.body.data.id as string, auth: { authorization: `Bearer ${login.body.data.access_token}` } };
    };
    const outsider = await make('alarm.outsider');
    const viewer = await make('alarm.viewer');
    expect((await t.api('POST', `/projects/${projectId}/members`, { headers: h(), body: { user_id: viewer.id, role: 'viewer' } })).status).toBe(200);
    await write(other, '2026-03-10T08:00:00Z', 30);
    const open = (await alarms(`?point_id=${other}&status=open`)).items[0];
    expectError(await t.api('GET', `/projects/${projectId}/alarms`, { headers: outsider.auth }), 403001, 'project_id');
    expectError(await t.api('GET', `/alarms/${open.alarm_id}`, { headers: outsider.auth }), 403001, 'project_id');
    expect((await t.api('GET', `/alarms/${open.alarm_id}`, { headers: viewer.auth })).status).toBe(200);
    expectError(await t.api('POST', `/alarms/${open.alarm_id}/acknowledge`, { headers: viewer.auth, body: {} }), 403002, 'project_id');
    expect((await t.api('GET', `/alarms/${open.alarm_id}`, { headers: h() })).body.data.status).toBe('open');
  });
});
