import { createHmac } from 'node:crypto';
import { startHttpsReceiver, testCertificate, type HttpsReceiver } from '@mp/testing';
import { ApiError, MonitoringPlatform, verifyWebhook, WebhookVerificationError } from '../src/index.js';

// The client guidance of docs/rules.md#client-retries and docs/rules.md#token-refresh, against an HTTPS server that answers as
// scripted (the platform cannot be made to fail on cue). The waits are recorded, not slept.
const envelope = (code: number, field: string | null = null) =>
  JSON.stringify({
    code,
    message: 'm',
    data: { field, detail: 'd', suggestion: 's' },
    meta: { request_id: 'req_00000000000000000001', timestamp: '2026-11-24T00:00:00.000Z', documentation_url: `x/docs/errors/${code}` },
  });
const success = (data: unknown) => JSON.stringify({ code: 200, data, meta: { request_id: 'req_00000000000000000002', timestamp: '2026-11-24T00:00:00.000Z' } });
const json = { 'content-type': 'application/json' };

describe('SDK runtime', () => {
  let server: HttpsReceiver;
  let ca: string;
  const waits: number[] = [];
  const client = (opts: Partial<ConstructorParameters<typeof MonitoringPlatform>[0]> = {}) =>
    new MonitoringPlatform({ baseUrl: `https://127.0.0.1:${server.port}/v3`, apiKey: 'mp_test_key', ca, sleep: async (ms) => void waits.push(ms), ...opts });

  beforeAll(async () => {
    ca = (await testCertificate()).cert;
    server = await startHttpsReceiver({ fallback: { status: 500, headers: json, body: envelope(500001) } });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.replies.length = 0;
    waits.length = 0;
  });

  it('backs off 1 s, 2 s, 4 s on 5xx and sends one Idempotency-Key across the attempts of a creating write', async () => {
    server.replies.push(
      { status: 503, headers: json, body: envelope(503002) },
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>bad gateway</html>' },
      { status: 500, headers: json, body: envelope(500001) },
      { status: 200, headers: json, body: success({ id: 'prj_1' }) },
    );
    const project = await client().request('POST /projects', { body: { name: 'Quay wall', number: 'QW-1' } });
    expect(project).toEqual({ id: 'prj_1' });
    expect(waits).toEqual([1000, 2000, 4000]);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(Array(4).fill('POST /v3/projects'));
    expect(server.requests[0]!.headers['x-api-key']).toBe('mp_test_key');
    expect(server.requests[0]!.json).toEqual({ name: 'Quay wall', number: 'QW-1' });
  });

  it('gives up after three retries with the last error, typed', async () => {
    const err = (await client()
      .request('GET /projects/{project_id}', { path: { project_id: 'prj_1' } })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect({ code: err.code, status: err.status, requestId: err.requestId }).toEqual({ code: 500001, status: 500, requestId: 'req_00000000000000000001' });
    expect(server.requests).toHaveLength(4);
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(server.requests[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('waits Retry-After on 429, and 60 s when the header is absent', async () => {
    server.replies.push(
      { status: 429, headers: { ...json, 'retry-after': '7' }, body: envelope(429001) },
      { status: 429, headers: json, body: envelope(429004) },
      { status: 200, headers: json, body: success({ items: [], next_cursor: null, has_more: false }) },
    );
    expect(await client().request('GET /projects')).toEqual({ items: [], next_cursor: null, has_more: false });
    expect(waits).toEqual([7000, 60_000]);
  });

  it('makes no wait longer than maxWaitMs: the error is thrown at once instead, with Retry-After', async () => {
    server.replies.push(
      { status: 503, headers: json, body: envelope(503002) },
      { status: 503, headers: json, body: envelope(503002) },
      { status: 503, headers: json, body: envelope(503002) },
      { status: 429, headers: { ...json, 'retry-after': '30' }, body: envelope(429001) },
    );
    const ui = client({ maxWaitMs: 2000 });
    const server5xx = (await ui.request('GET /projects').catch((e: unknown) => e)) as ApiError;
    expect({ code: server5xx.code, waits: [...waits], sent: server.requests.length }).toEqual({ code: 503002, waits: [1000, 2000], sent: 3 });
    const limited = (await ui.request('GET /projects').catch((e: unknown) => e)) as ApiError;
    expect({ code: limited.code, retryAfter: limited.retryAfter, waits: [...waits], sent: server.requests.length }).toEqual({
      code: 429001,
      retryAfter: 30,
      waits: [1000, 2000],
      sent: 4,
    });
  });

  it('does not repeat a 4xx, and carries code, field and request id', async () => {
    server.replies.push({ status: 422, headers: json, body: envelope(422101, 'name') });
    const err = (await client()
      .request('POST /projects', { body: { name: '', number: 'x' } })
      .catch((e: unknown) => e)) as ApiError;
    expect({ code: err.code, field: err.field, requestId: err.requestId, status: err.status }).toEqual({
      code: 422101,
      field: 'name',
      requestId: 'req_00000000000000000001',
      status: 422,
    });
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('pages through a list with the cursor until has_more is false', async () => {
    server.replies.push(
      { status: 200, headers: json, body: success({ items: [{ id: 'a' }, { id: 'b' }], next_cursor: 'c1', has_more: true }) },
      { status: 200, headers: json, body: success({ items: [{ id: 'c' }], next_cursor: null, has_more: false }) },
    );
    const ids: string[] = [];
    for await (const p of client().paginate('GET /projects', { query: { limit: 2, status: 'in_progress' } })) ids.push(p.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(server.requests.map((r) => r.path)).toEqual(['/v3/projects?limit=2&status=in_progress', '/v3/projects?limit=2&status=in_progress&cursor=c1']);
  });
});

describe('verifyWebhook', () => {
  const secret = 'whsec_test';
  const body = JSON.stringify({ event_id: 'evt_1', event_type: 'project.created', timestamp: '2026-11-24T00:00:00Z', webhook_id: 'whk_1', data: {} });
  const now = 1_790_000_000_000;
  const ts = String(now / 1000);
  const sign = (s: string, t: string, b: string) => `sha256=${createHmac('sha256', s).update(`${t}.${b}`).digest('hex')}`;

  it('accepts the signature of the raw body and answers the event', () => {
    const event = verifyWebhook(secret, { 'X-Service-Timestamp': ts, 'X-Service-Signature': sign(secret, ts, body) }, body, { now });
    expect(event.event_id).toBe('evt_1');
    expect(
      verifyWebhook(['old', secret], new Headers({ 'x-service-timestamp': ts, 'x-service-signature': sign(secret, ts, body) }), Buffer.from(body), { now })
        .event_type,
    ).toBe('project.created');
  });

  it('refuses another secret, a changed body, an old timestamp and missing headers', () => {
    const headers = { 'x-service-timestamp': ts, 'x-service-signature': sign(secret, ts, body) };
    expect(() => verifyWebhook('other', headers, body, { now })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, headers, body.replace('evt_1', 'evt_2'), { now })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, headers, body, { now: now + 301_000 })).toThrow(/300 s/);
    expect(() => verifyWebhook(secret, headers, body, { now: now + 299_000 })).not.toThrow();
    expect(() => verifyWebhook(secret, { 'x-service-timestamp': ts }, body, { now })).toThrow(/Signature/);
  });
});
