import { createLogger } from '@mp/kit';
import { LogCapture, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { dataProject, recordAt } from '../support/data-project.js';
import { ops, sample } from '../support/ops.js';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Logs and metrics (ADR 0036, 0038): one access line per request at info (with the request id the client
// sent when well formed), every line strict JSON with unique keys, and one /metrics for the whole
// embedded platform with bounded labels.
describe('observability: access logs and the platform metrics', () => {
  let t: TestPlatform;
  let key: string;
  let receiver: HttpsReceiver;
  let opsPort: number;
  let projectId: string;
  let pointId: string;
  const logs = new LogCapture();
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const metrics = async () => (await ops(opsPort, '/metrics')).text;
  const accessLines = () => logs.records().filter((r) => r.msg === 'request');

  beforeAll(async () => {
    // The rate limit is low enough to meet (per minute); everything else as the test platform has it.
    t = await startTestPlatform({ MP_LIMIT_API_PER_MINUTE: '40' }, { logger: createLogger('platform', 'info', logs) });
    opsPort = t.platform.opsPort!;
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write']);
    receiver = await startHttpsReceiver();
    const hook = await t.api('POST', '/webhooks', { headers: h(), body: { name: 'obs', url: receiver.url, events: ['data.created'], active: true } });
    expect(hook.status).toBe(200);
    ({ projectId, pointId } = await dataProject(t.api, h()));
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('keeps a well-formed X-Request-Id, replaces any other, and writes one access line per request', async () => {
    const mine = 'req_0123456789abcdefghij';
    const kept = await t.api('GET', `/projects/${projectId}`, { headers: h({ 'x-request-id': mine }) });
    expect(kept.status).toBe(200);
    expect(kept.headers['x-request-id']).toBe(mine);

    for (const bad of ['req_short', 'evt_0123456789abcdefghij', 'req_0123456789ABCDEFGHIJ', 'req_0123456789abcdefghij ', 'x'.repeat(300)]) {
      const res = await t.api('GET', '/projects/prj_00000000000000000000', { headers: h({ 'x-request-id': bad }) });
      expectError(res, 404001, 'project_id');
      expect(res.headers['x-request-id']).not.toBe(bad);
      expect(res.body.meta.request_id).toBe(res.headers['x-request-id']);
    }

    const line = accessLines().find((r) => r.request_id === mine)!;
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      service: 'gateway',
      request_id: mine,
      method: 'GET',
      route: '/v3/projects/:project_id',
      status: 200,
      ms: expect.any(Number),
      env: 'live',
      client_address: '127.0.0.1',
      tenant_id: expect.stringMatching(/^ten_[0-9a-z]{20}$/),
      msg: 'request',
    });
    // no header, query or body reaches the line: the API key is nowhere in the logs
    expect(logs.lines.some((l) => l.includes(key))).toBe(false);
    // an anonymous request has its line too, without a tenant
    const anon = await t.api('GET', '/projects');
    expectError(anon, 401001, 'X-API-Key');
    expect(accessLines().find((r) => r.request_id === anon.headers['x-request-id'])).toMatchObject({ status: 401, route: '/v3/projects', service: 'gateway' });
    expect(accessLines().find((r) => r.request_id === anon.headers['x-request-id'])).not.toHaveProperty('tenant_id');
  });

  it('counts requests per route template, gRPC calls per method, and records ingested and refused per reason', async () => {
    const before = await metrics();
    const write = await t.api('POST', `/projects/${projectId}/data`, {
      headers: h(),
      body: { records: [recordAt(pointId, '2026-03-01T08:00:00+08:00'), recordAt(pointId, '2026-03-01T09:00:00+08:00')] },
    });
    expect(write.status).toBe(200);
    // a refused write: one record in the future (all or nothing: nothing stored)
    const refused = await t.api('POST', `/projects/${projectId}/data`, {
      headers: h(),
      body: { records: [recordAt(pointId, '2026-03-02T08:00:00+08:00'), recordAt(pointId, '2099-01-01T00:00:00Z')] },
    });
    expect(refused.status).toBe(422);
    await receiver.waitFor(1);
    const after = await metrics();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);

    const route = '/v3/projects/:project_id/data';
    expect(delta('mp_http_requests_total', { env: 'live', method: 'POST', route, status: '200' })).toBe(1);
    expect(delta('mp_http_requests_total', { env: 'live', method: 'POST', route, status: '422' })).toBe(1);
    expect(delta('mp_http_request_duration_seconds_count', { env: 'live', method: 'POST', route })).toBe(2);
    expect(delta('mp_grpc_server_handled_total', { method: 'writeRecords', code: 'OK' })).toBe(1);
    expect(
      delta('mp_grpc_server_handled_total', { method: 'writeRecords', code: 'INVALID_ARGUMENT' }) +
        delta('mp_grpc_server_handled_total', { method: 'writeRecords', code: 'FAILED_PRECONDITION' }),
    ).toBe(1);
    expect(delta('mp_records_ingested_total', { path: 'write' })).toBe(2);
    expect(delta('mp_records_refused_total', { path: 'write', reason: String(refused.body.code) })).toBe(2);
    expect(delta('mp_outbox_published_total', { service: 'monitoring-data' })).toBe(1);
    expect(delta('mp_webhook_deliveries_created_total')).toBe(1);
    await waitUntil(
      async () =>
        sample(await metrics(), 'mp_webhook_attempts_total', { outcome: 'delivered' }) > sample(before, 'mp_webhook_attempts_total', { outcome: 'delivered' }),
    );
    await waitUntil(
      async () =>
        sample(await metrics(), 'mp_webhook_delivery_latency_seconds_count', { outcome: 'delivered' }) >
        sample(before, 'mp_webhook_delivery_latency_seconds_count', { outcome: 'delivered' }),
    );

    // backlog and lag as gauges; process metrics with the platform prefix
    expect(after).toMatch(/^mp_outbox_pending_events\{service="monitoring-data"\} \d+$/m);
    expect(after).toMatch(/^mp_outbox_oldest_pending_age_seconds\{service="projects"\} [\d.e+-]+$/m);
    expect(after).toMatch(/^mp_jetstream_consumer_lag\{consumer="webhooks"\} \d+$/m);
    expect(after).toMatch(/^mp_process_resident_memory_bytes \d+$/m);

    // bounded labels: no id of anything appears in any series
    const series = after.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(series.filter((l) => /"(req|prj|pt|ten|key|whk|evt|del|dat)_[0-9a-z]{20}"/.test(l))).toEqual([]);
  });

  it('counts refusals per rate limit', async () => {
    const before = await metrics();
    let limited = 0;
    for (let i = 0; i < 45 && limited === 0; i++) {
      const res = await t.api('GET', '/projects', { headers: h() });
      if (res.status === 429) {
        expectError(res, 429001);
        limited++;
      }
    }
    expect(limited).toBe(1);
    expect(
      sample(await metrics(), 'mp_rate_limit_refusals_total', { limit: '429001' }) - sample(before, 'mp_rate_limit_refusals_total', { limit: '429001' }),
    ).toBe(1);
  });

  it('serves /livez, /readyz and /metrics on the ops port only', async () => {
    expect((await ops(opsPort, '/livez')).status).toBe(200);
    expect((await ops(opsPort, '/readyz')).status).toBe(200);
    const m = await ops(opsPort, '/metrics');
    expect(m.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await ops(opsPort, '/other')).status).toBe(404);
    // the public port does not serve them
    expectError(await t.api('GET', '/metrics'), 404015, 'path');
  });

  it('wrote every log line as strict JSON with unique keys', () => {
    expect(logs.lines.length).toBeGreaterThan(10);
    // records() parses each line strictly and throws on a repeated key
    const records = logs.records();
    // each line names the one service that wrote it
    expect(records.every((r) => typeof r.service === 'string')).toBe(true);
    expect(new Set(records.map((r) => r.service))).toEqual(expect.objectContaining({}));
    expect([...new Set(records.map((r) => r.service))].sort()).toEqual(expect.arrayContaining(['gateway', 'webhooks']));
  });
});
