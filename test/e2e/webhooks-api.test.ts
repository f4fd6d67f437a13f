import { queryTestDatabase, startHttpsReceiver, type HttpsReceiver } from '@mp/testing';
import { verifySignature } from '@mp/webhooks';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

describe('webhook endpoints', () => {
  let t: TestPlatform;
  let key: string;
  let receiver: HttpsReceiver;
  const h = () => ({ 'x-api-key': key });
  const webhookCount = async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM webhooks.webhooks'))[0]!.n;

  beforeAll(async () => {
    t = await startTestPlatform();
    // system:admin, and what reading the subscribed events needs (a bare system:admin may not subscribe)
    key = await t.apiKey(['system:admin', 'data:read', 'task:read', 'project:read', 'report:read']);
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('creates a webhook with defaults and returns the secret only then', async () => {
    const res = await t.api('POST', '/webhooks', {
      headers: h(),
      body: { name: 'Site office', url: receiver.url, events: ['data.abnormal', 'task.status_changed'] },
    });
    expect(res.status).toBe(200);
    const w = res.body.data;
    expect(w).toMatchObject({
      name: 'Site office',
      url: receiver.url,
      events: ['data.abnormal', 'task.status_changed'],
      retry_policy: { max_retries: 3, retry_interval: 5 },
      active: true,
    });
    expect(w.id).toMatch(/^whk_[0-9a-z]{20}$/);
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(new Date(w.created_at).toISOString()).toBe(w.created_at);
    const got = await t.api('GET', `/webhooks/${w.id}`, { headers: h() });
    expect(got.body.data).not.toHaveProperty('secret');
    const list = await t.api('GET', '/webhooks', { headers: h() });
    expect(JSON.stringify(list.body)).not.toContain(w.secret);
    // Stored encrypted, never in clear.
    const rows = await queryTestDatabase<Record<string, unknown>>(t.db.url, 'SELECT * FROM webhooks.webhooks WHERE id = $1', [w.id]);
    expect(JSON.stringify(rows)).not.toContain(w.secret);
  });

  it.each([
    [{ name: 'x', url: 'http://example.com/hook', events: ['data.created'] }, 422103, 'url'],
    [{ name: 'x', url: 'not a url', events: ['data.created'] }, 422103, 'url'],
    [{ name: 'x', url: 'https://example.com/hook', events: ['data.exploded'] }, 422103, 'events[0]'],
    [{ name: 'x', url: 'https://example.com/hook', events: [] }, 422101, 'events'],
    [{ url: 'https://example.com/hook', events: ['data.created'] }, 422101, 'name'],
    [{ name: 'x', url: 'https://example.com/hook', events: 'data.created' }, 422102, 'events'],
    [{ name: 'x', url: 'https://example.com/hook', events: ['data.created'], retry_policy: { max_retries: 99 } }, 400003, 'retry_policy.max_retries'],
    [{ name: 'x', url: 'https://example.com/hook', events: ['data.created'], retry_policy: { retry_interval: 0 } }, 400003, 'retry_policy.retry_interval'],
  ])('refuses %j with %i on %s and creates nothing', async (body, code, field) => {
    const before = await webhookCount();
    expectError(await t.api('POST', '/webhooks', { headers: h(), body }), code, field);
    expect(await webhookCount()).toBe(before);
  });

  it('takes an API key or a user session (the console, ADR 0055) with system:admin', async () => {
    const token = await t.login();
    const res = await t.api('GET', '/webhooks', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data.items)).toBe(true);
  });

  it('needs system:admin (401004)', async () => {
    const weak = await t.apiKey(['project:read']);
    expectError(await t.api('POST', '/webhooks', { headers: { 'x-api-key': weak }, body: { name: 'x', url: receiver.url, events: ['data.created'] } }), 401004);
  });

  it('PUT accepts a body holding only events and changes nothing else', async () => {
    const created = (
      await t.api('POST', '/webhooks', {
        headers: h(),
        body: { name: 'Change me', url: receiver.url, events: ['data.created'], retry_policy: { max_retries: 5, retry_interval: 10 } },
      })
    ).body.data;
    const res = await t.api('PUT', `/webhooks/${created.id}`, { headers: h(), body: { events: ['report.generated', 'report.approved'] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: created.id,
      name: 'Change me',
      url: receiver.url,
      events: ['report.generated', 'report.approved'],
      retry_policy: { max_retries: 5, retry_interval: 10 },
      active: true,
    });
    const partial = await t.api('PUT', `/webhooks/${created.id}`, { headers: h(), body: { retry_policy: { max_retries: 1 }, active: false } });
    expect(partial.body.data).toMatchObject({ retry_policy: { max_retries: 1, retry_interval: 10 }, active: false });
  });

  it('PUT refuses bad values with no change stored', async () => {
    const created = (await t.api('POST', '/webhooks', { headers: h(), body: { name: 'Stable', url: receiver.url, events: ['data.created'] } })).body.data;
    expectError(await t.api('PUT', `/webhooks/${created.id}`, { headers: h(), body: { url: 'http://insecure.example/x' } }), 422103, 'url');
    const after = await t.api('GET', `/webhooks/${created.id}`, { headers: h() });
    expect(after.body.data.url).toBe(receiver.url);
    expect(after.body.data.updated_at).toBe(created.updated_at);
  });

  it('answers an unknown webhook with 404009 and a malformed id with 400004', async () => {
    expectError(await t.api('GET', '/webhooks/whk_zzzzzzzzzzzzzzzzzzzz', { headers: h() }), 404009, 'webhook_id');
    expectError(await t.api('PUT', '/webhooks/whk_zzzzzzzzzzzzzzzzzzzz', { headers: h(), body: { events: ['data.created'] } }), 404009, 'webhook_id');
    expectError(await t.api('DELETE', '/webhooks/nope', { headers: h() }), 400004, 'webhook_id');
  });

  it('sends a signed test event and records its delivery', async () => {
    const created = (await t.api('POST', '/webhooks', { headers: h(), body: { name: 'Testable', url: receiver.url, events: ['project.created'] } })).body.data;
    const before = receiver.requests.length;
    const res = await t.api('POST', `/webhooks/${created.id}/test`, { headers: h() });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ event_type: 'webhook.test', status: 'delivered', http_status: 200, webhook_id: created.id });
    const req = receiver.requests[before]!;
    expect(req.json).toMatchObject({ event_type: 'webhook.test', webhook_id: created.id, event_id: res.body.data.event_id });
    expect(
      verifySignature({
        secret: created.secret,
        signatureHeader: req.headers['x-service-signature'] as string,
        timestampHeader: req.headers['x-service-timestamp'] as string,
        rawBody: req.rawBody,
      }),
    ).toBe(true);
    const deliveries = await t.api('GET', `/webhooks/${created.id}/deliveries`, { headers: h() });
    expect(deliveries.body.data.items.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([res.body.data.delivery_id]);
  });

  it('DELETE removes the webhook from reads and from fan-out', async () => {
    const created = (await t.api('POST', '/webhooks', { headers: h(), body: { name: 'Gone', url: receiver.url, events: ['project.created'] } })).body.data;
    const del = await t.api('DELETE', `/webhooks/${created.id}`, { headers: h() });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id: created.id, deleted: true, active: false });
    expectError(await t.api('GET', `/webhooks/${created.id}`, { headers: h() }), 404009, 'webhook_id');
    const list = await t.api('GET', '/webhooks', { headers: h() });
    expect(list.body.data.items.map((w: { id: string }) => w.id)).not.toContain(created.id);
  });

  it('answers the deliveries of a deleted webhook with 404009, as the webhook itself', async () => {
    const created = (await t.api('POST', '/webhooks', { headers: h(), body: { name: 'Audited', url: receiver.url, events: ['project.created'] } })).body.data;
    const delivery = (await t.api('POST', `/webhooks/${created.id}/test`, { headers: h() })).body.data;
    expect((await t.api('GET', `/webhooks/${created.id}/deliveries`, { headers: h() })).status).toBe(200);
    expect((await t.api('DELETE', `/webhooks/${created.id}`, { headers: h() })).status).toBe(200);
    expectError(await t.api('GET', `/webhooks/${created.id}/deliveries`, { headers: h() }), 404009, 'webhook_id');
    expectError(await t.api('GET', `/webhooks/${created.id}/deliveries/${delivery.delivery_id}`, { headers: h() }), 404009, 'webhook_id');
    expectError(await t.api('POST', `/webhooks/${created.id}/deliveries/${delivery.delivery_id}/resend`, { headers: h() }), 404009, 'webhook_id');
    // The rows stay for audits.
    const kept = await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM webhooks.deliveries WHERE webhook_id = $1', [created.id]);
    expect(kept[0]!.n).toBe(1);
  });

  it('refuses private targets unless MP_WEBHOOK_ALLOW_PRIVATE_TARGETS is true', async () => {
    const strict = await startTestPlatform({ MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    try {
      const strictKey = await strict.apiKey(['system:admin']);
      for (const url of ['https://127.0.0.1/hook', 'https://10.0.0.5/hook', 'https://[::1]/hook', 'https://localhost/hook']) {
        expectError(
          await strict.api('POST', '/webhooks', { headers: { 'x-api-key': strictKey }, body: { name: 'x', url, events: ['data.created'] } }),
          422103,
          'url',
        );
      }
    } finally {
      await strict.stop();
    }
  });
});
