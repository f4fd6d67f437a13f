import { queryTestDatabase, type ApiResponse } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// ADR 0018 (webhook port too): hostile input at the gateway and in the services.
// Every refusal is the error envelope with the exact code and data.field, nothing is stored, and
// the service that used to echo the input answers the next request at once.
describe('hostile input', () => {
  let t: TestPlatform;
  let key: string;
  let token: string;
  let projectId: string;
  let pointId: string;
  let dataId: string;
  let webhookId: string;
  const MB = 1_000_000;
  const k = () => ({ 'x-api-key': key });
  const bearer = () => ({ authorization: `Bearer ${token}` });
  const count = async (sql: string, params: unknown[] = []) => (await queryTestDatabase<{ n: number }>(t.db.url, sql, params))[0]!.n;

  /**
   * The answer to a normal request after a hostile one. The stall this guards against held a
   * service for 35–45 s; 15 s tells it from a prompt answer with a wide margin on a busy machine.
   */
  const promptly = async (request: Promise<ApiResponse>): Promise<ApiResponse> => {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the service did not answer within 15 s: it is stalled')), 15_000);
    });
    try {
      return await Promise.race([request, stalled]);
    } finally {
      clearTimeout(timer);
    }
  };
  /** A refusal whose detail quotes at most a short excerpt of the input. */
  const expectShortRefusal = (res: ApiResponse, code: number, field: string) => {
    expectError(res, code, field);
    expect(res.text.length).toBeLessThan(2000);
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    token = await t.login();
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write', 'task:read', 'task:write']);
    projectId = (await t.api('POST', '/projects', { headers: k(), body: { name: 'Hostile input quay', number: 'HI-1' } })).body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: k(), body: { status: 'in_progress' } })).status).toBe(200);
    const pt = await t.api('POST', `/projects/${projectId}/points`, {
      headers: k(),
      body: { number: 'HI-01', name: 'Quay HI-01', sensor_type: 'level', reference: { x: 1000, y: 2000, z: 10 }, thresholds: { warning: 20, alarm: 30 } },
    });
    expect(pt.status).toBe(200);
    pointId = pt.body.data.id;
    const written = await t.api('POST', `/projects/${projectId}/data`, {
      headers: k(),
      body: { records: [{ point_id: pointId, measured_at: '2026-03-01T08:00:00Z', values: { dz: 1.5 } }] },
    });
    expect(written.status).toBe(200);
    dataId = written.body.data.records[0].data_id;
    const hook = await t.api('POST', '/webhooks', {
      headers: k(),
      body: { name: 'Hostile input hook', url: 'https://127.0.0.1:9/hook', events: ['data.created'] },
    });
    expect(hook.status).toBe(200);
    webhookId = hook.body.data.id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('bounded input (item 3)', () => {
    it('a 1 MB permission that identity echoed is 400003 on permissions[0]; no key is stored and identity answers the next request at once', async () => {
      const before = await count('SELECT count(*)::int AS n FROM identity.api_keys');
      const res = await t.api('POST', '/api-keys', { headers: bearer(), body: { name: 'stall', permissions: ['p'.repeat(MB)] } });
      expectShortRefusal(res, 400003, 'permissions[0]');
      expect(res.body.data.detail).toBe('permissions[0] is at most 64 characters long.');
      expect(await count('SELECT count(*)::int AS n FROM identity.api_keys')).toBe(before);
      expect((await promptly(t.api('GET', '/me', { headers: bearer() }))).status).toBe(200);
    });

    it('a 1 MB status that projects echoed is 400003 on status; the project is unchanged and projects answers at once', async () => {
      const res = await t.api('PUT', `/projects/${projectId}/status`, { headers: k(), body: { status: 's'.repeat(MB) } });
      expectShortRefusal(res, 400003, 'status');
      const after = await promptly(t.api('GET', `/projects/${projectId}`, { headers: k() }));
      expect(after.status).toBe(200);
      expect({ status: after.body.data.status, version: after.body.data.version }).toEqual({ status: 'in_progress', version: 2 });
    });

    it('a 1 MB event type that webhooks echoed is 400003 on events[0]; nothing is stored and webhooks answers at once', async () => {
      const before = await count('SELECT count(*)::int AS n FROM webhooks.webhooks');
      const res = await t.api('POST', '/webhooks', { headers: k(), body: { name: 'stall', url: 'https://127.0.0.1:9/x', events: ['e'.repeat(MB)] } });
      expectShortRefusal(res, 400003, 'events[0]');
      expect(await count('SELECT count(*)::int AS n FROM webhooks.webhooks')).toBe(before);
      expect((await promptly(t.api('GET', `/webhooks/${webhookId}`, { headers: k() }))).status).toBe(200);
    });

    it('a 1 MB sensor type that projects echoed is 400003 on sensor_type; no point is stored', async () => {
      const res = await t.api('POST', `/projects/${projectId}/points`, {
        headers: k(),
        body: { number: 'HI-99', name: 'Echo', sensor_type: 'x'.repeat(MB), reference: { x: 1, y: 2, z: 3 }, thresholds: { warning: 1, alarm: 2 } },
      });
      expectShortRefusal(res, 400003, 'sensor_type');
      expect(await count("SELECT count(*)::int AS n FROM projects.points WHERE number = 'HI-99'")).toBe(0);
      expect((await promptly(t.api('GET', `/points/${pointId}`, { headers: k() }))).status).toBe(200);
    });

    // Fields the services did not bound, each over the gateway's bound; a create stores nothing
    // and the data record stays as it was.
    const over: [string, string, string, () => Record<string, unknown>, string, string | null][] = [
      [
        'project start date',
        'POST',
        '/projects',
        () => ({ name: 'Bounded 3', number: 'HI-B3', start_date: '2'.repeat(41) }),
        'start_date',
        "SELECT count(*)::int AS n FROM projects.projects WHERE number = 'HI-B3'",
      ],
      [
        'task assignee',
        'POST',
        '/projects/{project}/tasks',
        () => ({ name: 'Task', assignee_id: 'u'.repeat(65) }),
        'assignee_id',
        'SELECT count(*)::int AS n FROM projects.tasks',
      ],
      ['member user id', 'POST', '/projects/{project}/members', () => ({ user_id: 'u'.repeat(65), role: 'viewer' }), 'user_id', null],
      [
        'webhook URL',
        'POST',
        '/webhooks',
        () => ({ name: 'Long URL', url: `https://127.0.0.1/${'u'.repeat(2000)}`, events: ['data.created'] }),
        'url',
        "SELECT count(*)::int AS n FROM webhooks.webhooks WHERE name = 'Long URL'",
      ],
      [
        'webhook event list',
        'POST',
        '/webhooks',
        () => ({ name: 'Many events', url: 'https://127.0.0.1/x', events: Array(51).fill('data.created') }),
        'events',
        "SELECT count(*)::int AS n FROM webhooks.webhooks WHERE name = 'Many events'",
      ],
      [
        'API key permission list',
        'POST',
        '/api-keys',
        () => ({ name: 'Many permissions', permissions: Array(11).fill('project:read') }),
        'permissions',
        "SELECT count(*)::int AS n FROM identity.api_keys WHERE name = 'Many permissions'",
      ],
      ['record version', 'PATCH', '/data/{data}', () => ({ remark: 'fine', version: 1e12 }), 'version', null],
    ];
    it.each(over)('%s over its bound is 400003 naming the field, and nothing is stored', async (_what, method, path, body, field, stored) => {
      const before = stored ? await count(stored) : 0;
      const res = await t.api(method, path.replace('{project}', projectId).replace('{data}', dataId), { headers: k(), body: body() });
      expectShortRefusal(res, 400003, field);
      if (stored) expect(await count(stored)).toBe(before);
      const record = (await t.api('GET', `/data/${dataId}`, { headers: k() })).body.data;
      expect({ version: record.version, remark: record.remark ?? null }).toEqual({ version: 1, remark: null });
    });

    it.each([
      ['/projects/{project}/data?point_id={long}', 'point_id'],
      ['/projects?status={short}', 'status'],
      ['/devices?type={short}', 'type'],
      ['/projects/{project}/tasks?assignee_id={long}', 'assignee_id'],
      ['/points/{point}/series?from={long}', 'from'],
      ['/webhooks/{webhook}/deliveries?event_type={long}', 'event_type'],
    ])('the query parameter of %s over its bound is 400003 naming it', async (path, field) => {
      const url = path
        .replace('{project}', projectId)
        .replace('{point}', pointId)
        .replace('{webhook}', webhookId)
        .replace('{long}', 'q'.repeat(65))
        .replace('{short}', 'q'.repeat(33));
      expectShortRefusal(await t.api('GET', url, { headers: k() }), 400003, field);
    });

    it('GET …/data/latest with more than 500 point ids is 400003 on point_id', async () => {
      const ids = Array.from({ length: 501 }, (_, i) => `pt_${String(i).padStart(20, '0')}`).join(',');
      expectShortRefusal(await t.api('GET', `/projects/${projectId}/data/latest?point_id=${ids}`, { headers: k() }), 400003, 'point_id');
    });

    it('a path parameter over 64 characters is 400003 and one holding NUL 400004, naming it; an unknown long path is not echoed', async () => {
      expectShortRefusal(await t.api('GET', `/projects/${'p'.repeat(5000)}`, { headers: k() }), 400003, 'project_id');
      expectShortRefusal(await t.api('GET', `/users/${'u'.repeat(5000)}`, { headers: k() }), 400003, 'user_id');
      const unknown = await t.api('GET', `/${'x'.repeat(10_000)}`, { headers: k() });
      expectShortRefusal(unknown, 404015, 'path');
      // A NUL in a path parameter is refused by name too (item 5), before any service sees it.
      expectError(await t.api('GET', '/projects/%00', { headers: k() }), 400004, 'project_id');
      expectError(await t.api('DELETE', '/webhooks/whk_%00', { headers: k() }), 400004, 'webhook_id');
      expect(await count('SELECT count(*)::int AS n FROM webhooks.webhooks WHERE id = $1', [webhookId])).toBe(1);
    });
  });

  describe('500s from input (item 5)', () => {
    it('a non-ASCII or control character in Idempotency-Key is 400004 on any endpoint, GETs included, and a create stores nothing; odd credentials are 401', async () => {
      expectError(await t.api('GET', '/projects', { headers: { ...k(), 'idempotency-key': 'clé-1' } }), 400004, 'Idempotency-Key');
      expectError(await t.api('GET', '/me', { headers: { ...bearer(), 'idempotency-key': 'a\tb' } }), 400004, 'Idempotency-Key');
      const before = await count('SELECT count(*)::int AS n FROM projects.projects');
      const res = await t.api('POST', '/projects', { headers: { ...k(), 'idempotency-key': 'ünïcode' }, body: { name: 'Idempotent quay', number: 'HI-IK' } });
      expectError(res, 400004, 'Idempotency-Key');
      expect(await count('SELECT count(*)::int AS n FROM projects.projects')).toBe(before);
      expectError(await t.api('GET', '/projects', { headers: { ...k(), 'idempotency-key': 'k'.repeat(256) } }), 400003, 'Idempotency-Key');
      expect((await t.api('GET', '/projects', { headers: { ...k(), 'idempotency-key': 'a-good-key' } })).status).toBe(200);
      // Odd bytes in the credential headers are refused as credentials, never a 500.
      // An unknown key is 401001 like any other wrong key (identity names no field for it).
      expectError(await t.api('GET', '/projects', { headers: { 'x-api-key': `${key}é` } }), 401001, null);
      expectError(await t.api('GET', '/projects', { headers: { authorization: 'Bearer tökén' } }), 401003, 'Authorization');
    });

    it('a traceparent that is not W3C Trace Context is ignored, not a 500', async () => {
      expect((await t.api('GET', '/projects', { headers: { ...k(), traceparent: 'ñot-a-trace' } })).status).toBe(200);
    });

    it('a NUL in a query is 400004 naming the parameter (q=%00 and others)', async () => {
      expectError(await t.api('GET', '/projects?q=%00', { headers: k() }), 400004, 'q');
      expectError(await t.api('GET', '/users?q=ab%00', { headers: bearer() }), 400004, 'q');
      expectError(await t.api('GET', '/devices?q=%01', { headers: k() }), 400004, 'q');
      expectError(await t.api('GET', `/projects/${projectId}/data?from=%00`, { headers: k() }), 400004, 'from');
    });

    it('a NUL in the login username is 400004 on username; no failure is counted and the administrator still signs in', async () => {
      const res = await t.api('POST', '/auth/login', { body: { username: `${t.admin.username}\u0000`, password: 'wrong', grant_type: 'password' } });
      expectError(res, 400004, 'username');
      expect(await count('SELECT coalesce(sum(failed_count), 0)::int AS n FROM identity.users')).toBe(0);
      expect((await t.api('POST', '/auth/login', { body: { ...t.admin, grant_type: 'password' } })).status).toBe(200);
    });

    it('a NUL in any body string is 400004 naming the field, and nothing is stored', async () => {
      expectError(await t.api('POST', '/projects', { headers: k(), body: { name: 'Quay\u0000wall', number: 'HI-NUL' } }), 400004, 'name');
      expect(await count("SELECT count(*)::int AS n FROM projects.projects WHERE number = 'HI-NUL'")).toBe(0);
      const point = {
        number: 'HI-NUL',
        name: 'NUL point',
        sensor_type: 'level',
        reference: { x: 1, y: 2, z: 3 },
        thresholds: { warning: 1, alarm: 2 },
        description: 'a\u0000',
      };
      expectError(await t.api('POST', `/projects/${projectId}/points`, { headers: k(), body: point }), 400004, 'description');
      expect(await count("SELECT count(*)::int AS n FROM projects.points WHERE number = 'HI-NUL'")).toBe(0);
      expectError(await t.api('PATCH', `/data/${dataId}`, { headers: k(), body: { remark: '\u0000' } }), 400004, 'remark');
      const records = [{ point_id: pointId, measured_at: '2026-03-01T09:00:00Z\u0000', values: { dz: 1 } }];
      expectError(await t.api('POST', `/projects/${projectId}/data`, { headers: k(), body: { records } }), 400004, 'records[0].measured_at');
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.data_records')).toBe(1);
      // Free text keeps its line breaks and tabs.
      const fine = await t.api('PATCH', `/data/${dataId}`, { headers: k(), body: { remark: 'line one\nline two\tend' } });
      expect(fine.status).toBe(200);
      expect(fine.body.data.remark).toBe('line one\nline two\tend');
    });

    it('an out-of-range If-Match on /data/{id} is 400004, not 502, on PATCH and DELETE; the record is unchanged', async () => {
      const before = (await t.api('GET', `/data/${dataId}`, { headers: k() })).body.data;
      expectError(
        await t.api('PATCH', `/data/${dataId}`, { headers: { ...k(), 'if-match': '"99999999999999999999"' }, body: { remark: 'x' } }),
        400004,
        'If-Match',
      );
      expectError(await t.api('DELETE', `/data/${dataId}`, { headers: { ...k(), 'if-match': '99999999999' } }), 400004, 'If-Match');
      expectError(
        await t.api('PATCH', `/projects/${projectId}`, { headers: { ...k(), 'if-match': '"99999999999999999999"' }, body: { name: 'Renamed' } }),
        400004,
        'If-Match',
      );
      const after = (await t.api('GET', `/data/${dataId}`, { headers: k() })).body.data;
      expect(after).toEqual(before);
    });
  });

  describe('whole numbers: every integer of the route table is bounded at the gateway', () => {
    const point = (alarm_rules: Record<string, number>) => ({
      number: `HI-W${Object.keys(alarm_rules)[0]!.length}`,
      name: 'Quay whole numbers',
      sensor_type: 'level',
      reference: { x: 1, y: 2, z: 3 },
      thresholds: { warning: 20, alarm: 30 },
      alarm_rules,
    });

    it('alarm rules fractional or at 2^31 are 400003 on the field when a point is created, and no point is stored', async () => {
      const before = await count('SELECT count(*)::int AS n FROM projects.points');
      for (const [field, value] of [
        ['clear_after_readings', 1.5],
        ['clear_after_readings', 2 ** 31],
        ['expected_interval_seconds', 0.5],
        ['expected_interval_seconds', 2 ** 31],
        ['stale_factor', 2.5],
        ['stale_factor', 1e20],
      ] as const) {
        const res = await t.api('POST', `/projects/${projectId}/points`, { headers: k(), body: point({ [field]: value }) });
        expectShortRefusal(res, 400003, `alarm_rules.${field}`);
        expect(res.body.data.suggestion).toEqual(expect.any(String));
      }
      expect(await count('SELECT count(*)::int AS n FROM projects.points')).toBe(before);
    });

    it('alarm rules fractional or at 2^31 are 400003 on the field when a point is changed, and the point is unchanged', async () => {
      const before = (await t.api('GET', `/points/${pointId}`, { headers: k() })).body.data;
      for (const [field, value] of [
        ['clear_after_readings', 2.25],
        ['expected_interval_seconds', 2 ** 31],
        ['stale_factor', 2 ** 31],
        ['stale_factor', 1.5],
      ] as const) {
        expectShortRefusal(
          await t.api('PATCH', `/points/${pointId}`, { headers: k(), body: { alarm_rules: { [field]: value } } }),
          400003,
          `alarm_rules.${field}`,
        );
      }
      expect((await t.api('GET', `/points/${pointId}`, { headers: k() })).body.data).toEqual(before);
      // whole and in range: accepted, so the bound is not a refusal of the field
      const ok = await t.api('PATCH', `/points/${pointId}`, { headers: k(), body: { alarm_rules: { clear_after_readings: 3, stale_factor: 2 } } });
      expect(ok.status).toBe(200);
      expect(ok.body.data.alarm_rules).toMatchObject({ clear_after_readings: 3, stale_factor: 2 });
    });

    it('other integers (version, retry policy, page size, buckets) fractional are 400003 on the field, not 422102', async () => {
      expectShortRefusal(await t.api('PATCH', `/points/${pointId}`, { headers: k(), body: { name: 'Whole', version: 1.5 } }), 400003, 'version');
      expectShortRefusal(
        await t.api('PUT', `/webhooks/${webhookId}`, { headers: k(), body: { retry_policy: { max_retries: 2.5 } } }),
        400003,
        'retry_policy.max_retries',
      );
      expectShortRefusal(await t.api('GET', `/projects?limit=1.5`, { headers: k() }), 400003, 'limit');
      expectShortRefusal(await t.api('GET', `/points/${pointId}/series?buckets=2.5`, { headers: k() }), 400003, 'buckets');
    });
  });

  describe('webhook URL ports (item 7)', () => {
    it('port 0 is refused with 422103 on url when creating or changing a webhook, and nothing is stored', async () => {
      const before = await count('SELECT count(*)::int AS n FROM webhooks.webhooks');
      expectError(
        await t.api('POST', '/webhooks', { headers: k(), body: { name: 'Port zero', url: 'https://127.0.0.1:0/hook', events: ['data.created'] } }),
        422103,
        'url',
      );
      expect(await count('SELECT count(*)::int AS n FROM webhooks.webhooks')).toBe(before);
      expectError(await t.api('PUT', `/webhooks/${webhookId}`, { headers: k(), body: { url: 'https://hooks.example.com:0/x' } }), 422103, 'url');
      expectError(await t.api('PUT', `/webhooks/${webhookId}`, { headers: k(), body: { url: 'https://hooks.example.com:65536/x' } }), 422103, 'url');
      expect((await t.api('GET', `/webhooks/${webhookId}`, { headers: k() })).body.data.url).toBe('https://127.0.0.1:9/hook');
    });
  });
});
