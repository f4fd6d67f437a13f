import { createHmac } from 'node:crypto';
import { projects } from '@mp/contracts';
import { createClient, type CallerContext } from '@mp/grpc';
import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Proof of ADR 0008: monitoring data written through the HTTPS gateway reaches a subscriber as
// signed data.created / data.abnormal / data.updated / data.batch_completed webhooks with the
// payloads of docs/rules.md#event-payloads, through PostgreSQL, the outbox, NATS JetStream and the webhooks service.
describe('monitoring data through the gateway, with webhooks', () => {
  let t: TestPlatform;
  let key: string;
  let receiver: HttpsReceiver;
  let hook: { id: string; secret: string };
  let projectId: string;
  let point: string;
  const h = () => ({ 'x-api-key': key });
  const stored = () => queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM monitoring_data.data_records').then((r) => r[0]!.n);
  const outbox = () => queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM monitoring_data.outbox').then((r) => r[0]!.n);
  const eventsOf = (type: string) => receiver.requests.filter((r) => r.json?.event_type === type);

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write']);
    receiver = await startHttpsReceiver();
    const res = await t.api('POST', '/webhooks', {
      headers: h(),
      body: {
        name: 'data',
        url: receiver.url,
        events: ['data.created', 'data.abnormal', 'data.updated', 'data.batch_completed'],
        retry_policy: { max_retries: 3, retry_interval: 1 },
        active: true,
      },
    });
    expect(res.status).toBe(200);
    hook = { id: res.body.data.id, secret: res.body.data.secret };
    const project = await t.api('POST', '/projects', { headers: h(), body: { name: 'Metro Line 4 tunnel', number: 'ML4-2026', start_date: '2026-01-01' } });
    expect(project.status).toBe(200);
    projectId = project.body.data.id;
    // Before the project starts, data is refused (422303) and nothing is stored.
    const early = await t.api('POST', `/projects/${projectId}/data`, {
      headers: h(),
      body: { records: [{ point_id: 'pt_00000000000000000000', measured_at: '2026-03-01T08:00:00+08:00', values: { dz: 1 } }] },
    });
    expectError(early, 422303, 'project_id');
    // Project status and points are set up through the projects service itself (its gRPC
    // contract), so this file depends only on the data routes of the gateway.
    const [{ tenant_id }] = await queryTestDatabase<{ tenant_id: string }>(t.db.url, 'SELECT tenant_id FROM projects.projects WHERE id = $1', [projectId]);
    const caller: CallerContext = {
      requestId: 'req_setup',
      tenantId: tenant_id!,
      environment: 'live',
      principalId: 'key_setup',
      principalType: 'api_key',
      permissions: ['project:write'],
    };
    const projectsClient = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${t.platform.ports.projects}`, {
      auth: t.platform.keys.authFor('gateway'),
      audience: 'projects',
    });
    try {
      await projectsClient.changeProjectStatus({ id: projectId, status: 'in_progress' }, caller);
      const pt = await projectsClient.createPoint(
        {
          projectId,
          number: 'JC-01',
          name: 'Crown settlement JC-01',
          sensorType: 'total_station',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          warningThreshold: 10,
          alarmThreshold: 20,
        },
        caller,
      );
      point = pt.id;
    } finally {
      projectsClient.close();
    }
  });

  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('stores a write and answers with every record, its data_id, status and quality_flag', async () => {
    const res = await t.api('POST', `/projects/${projectId}/data`, {
      headers: h(),
      body: {
        records: [
          { point_id: point, measured_at: '2026-03-01T08:30:00+08:00', values: { x: 3512345.101, y: 512345.602, z: 45.297 } },
          { point_id: point, measured_at: '2026-03-02T08:30:00+08:00', values: { dx: 0.5, dy: -0.4, dz: -25.2 } },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      project_id: projectId,
      total_count: 2,
      abnormal_count: 1,
      records: [
        {
          data_id: expect.stringMatching(/^dat_[0-9a-z]{20}$/),
          point_id: point,
          measured_at: '2026-03-01T08:30:00+08:00',
          status: 'normal',
          quality_flag: 'valid',
        },
        {
          data_id: expect.stringMatching(/^dat_[0-9a-z]{20}$/),
          point_id: point,
          measured_at: '2026-03-02T08:30:00+08:00',
          status: 'alarm',
          quality_flag: 'valid',
        },
      ],
    });
  });

  it('delivers data.created with exactly its documented payload, signed as documented', async () => {
    await waitUntil(() => eventsOf('data.created').length >= 1);
    const req = eventsOf('data.created')[0]!;
    const body = req.json;
    expect(Object.keys(body).sort()).toEqual(['data', 'event_id', 'event_type', 'timestamp', 'webhook_id']);
    expect(body.webhook_id).toBe(hook.id);
    const [first, second] = (await t.api('GET', `/projects/${projectId}/data?order=asc`, { headers: h() })).body.data.items;
    expect(body.data).toEqual({
      project_id: projectId,
      project_name: 'Metro Line 4 tunnel',
      records: [
        {
          data_id: first.data_id,
          point_id: point,
          point_name: 'Crown settlement JC-01',
          sensor_type: 'total_station',
          measured_at: '2026-03-01T08:30:00+08:00',
          values: { x: 3512345.101, y: 512345.602, z: 45.297, dx: 1, dy: 2, dz: -3 },
          status: 'normal',
          quality_flag: 'valid',
        },
        {
          data_id: second.data_id,
          point_id: point,
          point_name: 'Crown settlement JC-01',
          sensor_type: 'total_station',
          measured_at: '2026-03-02T08:30:00+08:00',
          values: { dx: 0.5, dy: -0.4, dz: -25.2 },
          status: 'alarm',
          quality_flag: 'valid',
        },
      ],
      total_count: 2,
      abnormal_count: 1,
    });
    const ts = req.headers['x-service-timestamp'] as string;
    expect(req.headers['x-service-signature']).toBe('sha256=' + createHmac('sha256', hook.secret).update(`${ts}.${req.rawBody}`).digest('hex'));
  });

  it('delivers data.abnormal with alert_level, dx/dy/dz only, threshold and reason, and no quality_flag', async () => {
    await waitUntil(() => eventsOf('data.abnormal').length >= 1);
    const data = eventsOf('data.abnormal')[0]!.json.data;
    const second = (await t.api('GET', `/points/${point}/data?status=alarm`, { headers: h() })).body.data.items[0];
    expect(data).toEqual({
      project_id: projectId,
      project_name: 'Metro Line 4 tunnel',
      alert_level: 'alarm',
      records: [
        {
          data_id: second.data_id,
          point_id: point,
          point_name: 'Crown settlement JC-01',
          sensor_type: 'total_station',
          measured_at: '2026-03-02T08:30:00+08:00',
          values: { dx: 0.5, dy: -0.4, dz: -25.2 },
          status: 'alarm',
          threshold: { warning: 10, alarm: 20 },
          reason: 'dz -25.2 mm reached the alarm threshold of 20 mm (warning 10 mm, alarm 20 mm)',
        },
      ],
    });
  });

  it.each([
    [{}, 422101, 'records'],
    [{ records: 'all' }, 422102, 'records'],
    [{ records: [] }, 400003, 'records'],
    [
      { records: [{ point_id: 'pt_00000000000000000000', measured_at: '2026-03-03T08:00:00+08:00', values: { x: '3512345.1' } }] },
      422102,
      'records[0].values.x',
    ],
    [{ records: [{ point_id: 'pt_00000000000000000000', measured_at: '03/03/2026 08:00', values: { dz: 1 } }] }, 400004, 'records[0].measured_at'],
    [{ records: [{ point_id: '42', measured_at: '2026-03-03T08:00:00Z', values: { dz: 1 } }] }, 400004, 'records[0].point_id'],
    [{ records: [{ measured_at: '2026-03-03T08:00:00Z', values: { dz: 1 } }] }, 422101, 'records[0].point_id'],
    [{ records: [{ point_id: 'pt_00000000000000000000', measured_at: '2026-03-03T08:00:00Z', values: { dz: 1 } }] }, 404003, 'records[0].point_id'],
  ])('refuses %j with %i on %s, storing and emitting nothing', async (body, code, field) => {
    const before = { rows: await stored(), events: await outbox() };
    expectError(await t.api('POST', `/projects/${projectId}/data`, { headers: h(), body }), code, field);
    expect({ rows: await stored(), events: await outbox() }).toEqual(before);
  });

  it('refuses a bad enumerated quality_flag with 422103 and a key without data:write with 401004', async () => {
    const [rec] = (await t.api('GET', `/projects/${projectId}/data`, { headers: h() })).body.data.items;
    expectError(await t.api('PATCH', `/data/${rec.data_id}`, { headers: h(), body: { quality_flag: 'dubious' } }), 422103, 'quality_flag');
    const reader = await t.apiKey(['data:read', 'project:read']);
    expectError(
      await t.api('POST', `/projects/${projectId}/data`, {
        headers: { 'x-api-key': reader },
        body: { records: [{ point_id: point, measured_at: '2026-03-05T00:00:00Z', values: { dz: 1 } }] },
      }),
      401004,
      null,
    );
  });

  it('marks a record invalid with PATCH and delivers data.updated; a stale If-Match is 409004', async () => {
    const [rec] = (await t.api('GET', `/points/${point}/data?status=alarm`, { headers: h() })).body.data.items;
    const res = await t.api('PATCH', `/data/${rec.data_id}`, {
      headers: { ...h(), 'if-match': '"1"' },
      body: { quality_flag: 'invalid', remark: 'prism knocked' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ data_id: rec.data_id, quality_flag: 'invalid', remark: 'prism knocked', version: 2 });
    expectError(await t.api('PATCH', `/data/${rec.data_id}`, { headers: { ...h(), 'if-match': '1' }, body: { remark: 'again' } }), 409004, 'version');
    await waitUntil(() => eventsOf('data.updated').length >= 1);
    expect(eventsOf('data.updated')[0]!.json.data).toMatchObject({
      project_id: projectId,
      change: 'updated',
      changed_fields: ['quality_flag', 'remark'],
      records: [{ data_id: rec.data_id, quality_flag: 'invalid' }],
    });
    // the invalid record leaves the latest values: the earlier one is the latest valid value again
    const latest = await t.api('GET', `/projects/${projectId}/data/latest`, { headers: h() });
    expect(latest.body.data.items.map((r: { measured_at: string }) => r.measured_at)).toEqual(['2026-03-01T08:30:00+08:00']);
  });

  it('processes a batch, reports refused records by index, and delivers data.batch_completed', async () => {
    const records = Array.from({ length: 300 }, (_, i) => ({
      point_id: point,
      measured_at: new Date(Date.UTC(2026, 3, 1) + i * 600_000).toISOString(),
      values: { dz: -(i % 50) / 10 },
    }));
    records[7] = { ...records[7]!, point_id: 'pt_00000000000000000001' };
    const res = await t.api('POST', `/projects/${projectId}/data/batches`, { headers: h(), body: { records } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ batch_id: expect.stringMatching(/^bat_/), status: 'pending', total_count: 300 });
    const batchId = res.body.data.batch_id;
    const done = await waitUntil(async () => {
      const r = await t.api('GET', `/data/batches/${batchId}`, { headers: h() });
      return r.body.data.status === 'completed' ? r.body.data : null;
    });
    expect(done).toMatchObject({
      processed_count: 300,
      accepted_count: 299,
      rejected_count: 1,
      errors: { items: [{ index: 7, code: 404003, field: 'records[7].point_id', detail: expect.any(String) }], has_more: false },
    });
    await waitUntil(() => eventsOf('data.batch_completed').length >= 1);
    expect(eventsOf('data.batch_completed')[0]!.json.data).toMatchObject({
      batch_id: batchId,
      project_id: projectId,
      status: 'completed',
      total_count: 300,
      accepted_count: 299,
      rejected_count: 1,
    });
    const series = await t.api('GET', `/points/${point}/series?from=2026-04-01T00:00:00Z&to=2026-04-03T00:00:00Z&interval_seconds=86400`, { headers: h() });
    expect(series.status).toBe(200);
    expect(series.body.data.buckets.map((b: { start: string; count: number }) => [b.start, b.count])).toEqual([
      ['2026-04-01T00:00:00.000Z', 143], // records[7] was refused
      ['2026-04-02T00:00:00.000Z', 144],
    ]);
    expect(series.body.data.buckets[0].dz).toEqual({ min: -4.9, avg: expect.any(Number), max: 0 });
  });

  it('answers unknown and malformed ids with 404004 / 400004 / 404013', async () => {
    expectError(await t.api('GET', '/data/dat_00000000000000000000', { headers: h() }), 404004, 'data_id');
    expectError(await t.api('GET', '/data/42', { headers: h() }), 400004, 'data_id');
    expectError(await t.api('GET', '/data/batches/bat_00000000000000000000', { headers: h() }), 404013, 'batch_id');
  });
});
