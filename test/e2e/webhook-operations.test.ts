import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { verifySignature } from '@mp/webhooks';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// ADR 0009 through the HTTPS API: the delivery list with filters and cursors, one delivery
// with its attempts, resend, secret rotation, the success rate on the webhook resource, and the
// test event's payload.
describe('operating webhooks through the API', () => {
  let t: TestPlatform;
  let key: string;
  let receiver: HttpsReceiver;
  let hook: { id: string; secret: string };
  const h = () => ({ 'x-api-key': key });
  const project = (n: number) => t.api('POST', '/projects', { headers: h(), body: { name: `Tunnel section ${n}`, number: `TS-${n}` } });

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['system:admin', 'project:read', 'project:write']);
    // The first attempt of every event fails with 503, the retry (1 s later) is answered 200.
    const seen = new Set<string>();
    receiver = await startHttpsReceiver({
      fallback: (req) => {
        const id = String(req.headers['x-service-event-id']);
        if (req.json?.event_type === 'webhook.test' || seen.has(id)) return { status: 200 };
        seen.add(id);
        return { status: 503 };
      },
    });
    const res = await t.api('POST', '/webhooks', {
      headers: h(),
      body: { name: 'Ops', url: receiver.url, events: ['project.created'], retry_policy: { max_retries: 3, retry_interval: 1 } },
    });
    hook = { id: res.body.data.id, secret: res.body.data.secret };
    for (let n = 1; n <= 3; n++) expect((await project(n)).status).toBe(200);
    await waitUntil(async () => (await t.api('GET', `/webhooks/${hook.id}/deliveries?status=delivered`, { headers: h() })).body.data.items.length === 3, {
      timeoutMs: 20_000,
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('GET /webhooks/{id}/deliveries/{delivery_id} shows the record and its attempts', async () => {
    const [d] = (await t.api('GET', `/webhooks/${hook.id}/deliveries?limit=1`, { headers: h() })).body.data.items;
    const res = await t.api('GET', `/webhooks/${hook.id}/deliveries/${d.delivery_id}`, { headers: h() });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ delivery_id: d.delivery_id, event_type: 'project.created', status: 'delivered', http_status: 200, resend_count: 0 });
    expect(res.body.data.attempts).toEqual([
      {
        attempt: 1,
        cycle: 1,
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        http_status: 503,
        outcome: 'retry',
        error: 'receiver answered 503',
        redirects: 0,
        retry_at: expect.any(String),
      },
      {
        attempt: 2,
        cycle: 1,
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        http_status: 200,
        outcome: 'delivered',
        error: null,
        redirects: 0,
        retry_at: null,
      },
    ]);
    expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries/del_nope`, { headers: h() }), 400004, 'delivery_id');
    expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries/del_zzzzzzzzzzzzzzzzzzzz`, { headers: h() }), 404011, 'delivery_id');
  });

  it('lists deliveries with status, event_type and time filters and cursors', async () => {
    const all = (await t.api('GET', `/webhooks/${hook.id}/deliveries`, { headers: h() })).body.data;
    expect(all).toMatchObject({ has_more: false, next_cursor: null });
    expect(all.items).toHaveLength(3);
    const page1 = (await t.api('GET', `/webhooks/${hook.id}/deliveries?limit=2&event_type=project.created`, { headers: h() })).body.data;
    expect(page1).toMatchObject({ has_more: true });
    const page2 = (await t.api('GET', `/webhooks/${hook.id}/deliveries?limit=2&event_type=project.created&cursor=${page1.next_cursor}`, { headers: h() })).body
      .data;
    expect([...page1.items, ...page2.items].map((d: { delivery_id: string }) => d.delivery_id)).toEqual(
      all.items.map((d: { delivery_id: string }) => d.delivery_id),
    );
    const oldest = all.items[2].created_at;
    const newer = (await t.api('GET', `/webhooks/${hook.id}/deliveries?from=${encodeURIComponent(all.items[1].created_at)}`, { headers: h() })).body.data.items;
    expect(newer.map((d: { created_at: string }) => d.created_at).every((c: string) => c >= all.items[1].created_at)).toBe(true);
    const older = (await t.api('GET', `/webhooks/${hook.id}/deliveries?to=${encodeURIComponent(all.items[1].created_at)}`, { headers: h() })).body.data.items;
    expect(older.map((d: { created_at: string }) => d.created_at)).toContain(oldest);
    expect((await t.api('GET', `/webhooks/${hook.id}/deliveries?status=failed`, { headers: h() })).body.data.items).toEqual([]);

    expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries?status=lost`, { headers: h() }), 400001, 'status');
    expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries?event_type=project.exploded`, { headers: h() }), 400001, 'event_type');
    expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries?from=last-week`, { headers: h() }), 400004, 'from');
    expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z`, { headers: h() }), 400003, 'to');
    expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries?limit=101`, { headers: h() }), 400003, 'limit');
  });

  it('POST …/resend sends the same event again in a new cycle', async () => {
    const [d] = (await t.api('GET', `/webhooks/${hook.id}/deliveries?limit=1`, { headers: h() })).body.data.items;
    const before = receiver.requests.length;
    const res = await t.api('POST', `/webhooks/${hook.id}/deliveries/${d.delivery_id}/resend`, { headers: h() });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ delivery_id: d.delivery_id, event_id: d.event_id, status: 'pending', retry_count: 0, resend_count: 1 });
    const [again] = (await receiver.waitFor(before + 1)).slice(before);
    expect(again!.json.event_id).toBe(d.event_id);
    expect(
      verifySignature({
        secret: hook.secret,
        signatureHeader: again!.headers['x-service-signature'],
        timestampHeader: again!.headers['x-service-timestamp'],
        rawBody: again!.rawBody,
      }),
    ).toBe(true);
    const detail = await waitUntil(async () => {
      const r = await t.api('GET', `/webhooks/${hook.id}/deliveries/${d.delivery_id}`, { headers: h() });
      return r.body.data.status === 'delivered' ? r.body.data : null;
    });
    expect(detail.attempts.map((a: { cycle: number; attempt: number }) => [a.cycle, a.attempt])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
    expectError(await t.api('POST', `/webhooks/whk_zzzzzzzzzzzzzzzzzzzz/deliveries/${d.delivery_id}/resend`, { headers: h() }), 404009, 'webhook_id');
  });

  it('POST …/rotate-secret returns the new secret once; the old one signs until the switch', async () => {
    const res = await t.api('POST', `/webhooks/${hook.id}/rotate-secret`, { headers: h(), body: { grace_period_seconds: 600 } });
    expect(res.status).toBe(200);
    const rotated = res.body.data;
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(Date.parse(rotated.secret_rotation.new_secret_signs_from) - Date.parse(rotated.secret_rotation.rotated_at)).toBe(600_000);
    const got = (await t.api('GET', `/webhooks/${hook.id}`, { headers: h() })).body.data;
    expect(got).not.toHaveProperty('secret');
    expect(got.secret_rotation).toEqual(rotated.secret_rotation);

    const before = receiver.requests.length;
    expect((await t.api('POST', `/webhooks/${hook.id}/test`, { headers: h() })).body.data.status).toBe('delivered');
    const during = receiver.requests[before]!;
    const signed = (secret: string, r: typeof during) =>
      verifySignature({ secret, signatureHeader: r.headers['x-service-signature'], timestampHeader: r.headers['x-service-timestamp'], rawBody: r.rawBody });
    expect([signed(hook.secret, during), signed(rotated.secret, during)]).toEqual([true, false]);

    await queryTestDatabase(t.db.url, "UPDATE webhooks.webhooks SET secret_switch_at = now() - interval '1 second' WHERE id = $1", [hook.id]);
    await t.api('POST', `/webhooks/${hook.id}/test`, { headers: h() });
    const after = receiver.requests[before + 1]!;
    expect([signed(hook.secret, after), signed(rotated.secret, after)]).toEqual([false, true]);
    expect((await t.api('GET', `/webhooks/${hook.id}`, { headers: h() })).body.data.secret_rotation).toBeNull();

    const version = (await queryTestDatabase<{ version: number }>(t.db.url, 'SELECT version FROM webhooks.webhooks WHERE id = $1', [hook.id]))[0]!.version;
    expectError(
      await t.api('POST', `/webhooks/${hook.id}/rotate-secret`, { headers: h(), body: { grace_period_seconds: 'soon' } }),
      422102,
      'grace_period_seconds',
    );
    expectError(
      await t.api('POST', `/webhooks/${hook.id}/rotate-secret`, { headers: h(), body: { grace_period_seconds: 8 * 86_400 } }),
      400003,
      'grace_period_seconds',
    );
    expect((await queryTestDatabase<{ version: number }>(t.db.url, 'SELECT version FROM webhooks.webhooks WHERE id = $1', [hook.id]))[0]!.version).toBe(
      version,
    );
    const weak = await t.apiKey(['project:read']);
    expectError(await t.api('POST', `/webhooks/${hook.id}/rotate-secret`, { headers: { 'x-api-key': weak } }), 401004);
  });

  it('shows success_rate and delivery_stats on the webhook', async () => {
    const w = (await t.api('GET', `/webhooks/${hook.id}`, { headers: h() })).body.data;
    expect(w.delivery_stats).toEqual({ window_hours: 24, delivered: expect.any(Number), failed: 0, pending: 0 });
    expect(w.delivery_stats.delivered).toBeGreaterThanOrEqual(3);
    expect(w.success_rate).toBe(1);
    const list = (await t.api('GET', '/webhooks', { headers: h() })).body.data.items;
    expect(list.find((x: { id: string }) => x.id === hook.id)).toMatchObject({ success_rate: 1 });
  });

  it('sends the documented test event payload', async () => {
    const before = receiver.requests.length;
    const res = await t.api('POST', `/webhooks/${hook.id}/test`, { headers: h() });
    const body = receiver.requests[before]!.json;
    expect(body).toEqual({
      event_id: res.body.data.event_id,
      event_type: 'webhook.test',
      timestamp: expect.any(String),
      webhook_id: hook.id,
      data: { message: 'Test event from the Monitoring Platform. No action is needed.', webhook_id: hook.id, webhook_name: 'Ops' },
    });
  });
});
