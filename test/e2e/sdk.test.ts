import { decodeJwt } from 'jose';
import { startHttpsReceiver, testCertificate, type HttpsReceiver } from '@mp/testing';
import { ApiError, MonitoringPlatform, verifyWebhook } from '@mp/sdk';
import { signWithPlatformKey, testSecretsKey } from '../support/identity.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// The TypeScript SDK (packages/sdk) against the real platform: a session from username and
// password, an API key, typed calls, cursor paging, typed refusals, the refresh on 401002 and a
// real webhook delivery verified with verifyWebhook.
describe('TypeScript SDK against the platform', () => {
  const secretsKey = testSecretsKey();
  let t: TestPlatform;
  let ca: string;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    t = await startTestPlatform({ MP_SECRETS_KEY: secretsKey });
    ca = (await testCertificate()).cert;
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('signs in, makes a key, and works a project through with it: points, start, data, series, paging', async () => {
    const admin = new MonitoringPlatform({ baseUrl: t.base, credentials: t.admin, ca });
    const me = await admin.request('GET /me');
    expect(me.principal_type).toBe('user');
    const key = await admin.request('POST /api-keys', { body: { name: 'sdk', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] } });
    expect(key.key).toMatch(/^mp_live_/);

    const mp = new MonitoringPlatform({ baseUrl: t.base, apiKey: key.key, ca });
    const names = ['Quay wall', 'Tunnel', 'Bridge'];
    const created = [];
    for (const [i, name] of names.entries()) created.push(await mp.request('POST /projects', { body: { name, number: `SDK-${i}` } }));
    const point = await mp.request('POST /projects/{project_id}/points', {
      path: { project_id: created[0]!.id },
      body: { number: 'P1', name: 'Crest', sensor_type: 'total_station', reference: { x: 1, y: 2, z: 3 }, thresholds: { warning: 10, alarm: 20 } },
    });
    const started = await mp.request('PUT /projects/{project_id}/status', { path: { project_id: created[0]!.id }, body: { status: 'in_progress' } });
    expect(started.status).toBe('in_progress');
    const written = await mp.request('POST /projects/{project_id}/data', {
      path: { project_id: created[0]!.id },
      body: { records: [{ point_id: point.id, measured_at: '2026-03-01T08:00:00Z', values: { dz: 1.5 } }] },
    });
    expect(written).toMatchObject({ total_count: 1, abnormal_count: 0 });
    const series = await mp.request('GET /points/{point_id}/series', {
      path: { point_id: point.id },
      query: { from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z', interval_seconds: 3600 },
    });
    expect(series.buckets.reduce((n, b) => n + b.count, 0)).toBe(1);

    // Pages of one: the iteration follows next_cursor through all three.
    const seen: string[] = [];
    for await (const p of mp.paginate('GET /projects', { query: { limit: 1 } })) seen.push(p.name);
    expect(seen.sort()).toEqual([...names].sort());
  });

  it('throws a typed error with code, field and request id, and sends nothing twice', async () => {
    const mp = new MonitoringPlatform({ baseUrl: t.base, apiKey: await t.apiKey(['project:read']), ca });
    const err = (await mp.request('GET /projects/{project_id}', { path: { project_id: 'prj_00000000000000000000' } }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect({ code: err.code, status: err.status, field: err.field }).toEqual({ code: 404001, status: 404, field: 'project_id' });
    expect(err.requestId).toMatch(/^req_[0-9a-z]{20}$/);
    expect(err.documentationUrl).toMatch(/\/docs\/errors\/404001$/);
    const refused = (await mp.request('POST /projects', { body: { name: 'No write', number: 'NW' } }).catch((e: unknown) => e)) as ApiError;
    expect(refused.code).toBe(401004);
  });

  it('refreshes an expired access token once (401002) and repeats the request', async () => {
    const login = await t.api('POST', '/auth/login', { body: { ...t.admin, grant_type: 'password' } });
    const claims = decodeJwt(login.body.data.access_token);
    const now = Math.floor(Date.now() / 1000);
    const expired = await signWithPlatformKey(t, secretsKey, { ...claims, iat: now - 7300, exp: now - 100 });
    const saved: string[] = [];
    const mp = new MonitoringPlatform({
      baseUrl: t.base,
      tokens: { accessToken: expired, refreshToken: login.body.data.refresh_token },
      ca,
      onTokens: (s) => saved.push(s.accessToken),
    });
    const list = await mp.request('GET /projects');
    expect(Array.isArray(list.items)).toBe(true);
    expect(saved).toHaveLength(1);
    expect(mp.session!.accessToken).not.toBe(expired);
  });

  it('verifies a real, signed webhook delivery with verifyWebhook', async () => {
    // subscribing to project.created needs project:read too: a webhook delivers only what its maker can read
    const mp = new MonitoringPlatform({ baseUrl: t.base, apiKey: await t.apiKey(['system:admin', 'project:read']), ca });
    const webhook = await mp.request('POST /webhooks', { body: { name: 'sdk receiver', url: receiver.url, events: ['project.created'] } });
    const delivery = await mp.request('POST /webhooks/{webhook_id}/test', { path: { webhook_id: webhook.id } });
    expect(delivery.status).toBe('delivered');
    const received = receiver.requests.find((r) => (r.json as { event_id?: string })?.event_id === delivery.event_id)!;
    const event = verifyWebhook(webhook.secret, received.headers as Record<string, string>, received.rawBody);
    expect(event).toMatchObject({ event_type: 'webhook.test', webhook_id: webhook.id });
    // typed by event_type: the test event's data without a cast
    if (event.event_type !== 'webhook.test') throw new Error(`expected webhook.test, got ${event.event_type}`);
    expect(event.data.webhook_name).toBe('sdk receiver');
    expect(() => verifyWebhook('not-the-secret', received.headers as Record<string, string>, received.rawBody)).toThrow();
    const deliveries = [];
    for await (const d of mp.paginate('GET /webhooks/{webhook_id}/deliveries', { path: { webhook_id: webhook.id } })) deliveries.push(d.delivery_id);
    expect(deliveries).toEqual([delivery.delivery_id]);
  });
});
