import { createHmac } from 'node:crypto';
import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { verifySignature } from '@mp/webhooks';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// Proof: a project created through the HTTPS gateway reaches subscribers as a signed
// project.created webhook, through PostgreSQL, the outbox, NATS JetStream and the webhooks service.
describe('project.created travels from the API write to signed webhooks', () => {
  let t: TestPlatform;
  let key: string;
  const receivers: Record<string, HttpsReceiver> = {};
  const hooks: Record<string, { id: string; secret: string }> = {};
  let project: { id: string; name: string; number: string };

  const createHook = async (name: string, url: string) => {
    const res = await t.api('POST', '/webhooks', {
      headers: { 'x-api-key': key },
      body: { name, url, events: ['project.created'], retry_policy: { max_retries: 3, retry_interval: 1 }, active: true },
    });
    expect(res.status).toBe(200);
    hooks[name] = { id: res.body.data.id, secret: res.body.data.secret };
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['system:admin', 'project:read', 'project:write']);
    receivers.ok = await startHttpsReceiver();
    receivers.flaky = await startHttpsReceiver({ replies: [{ status: 500 }] });
    receivers.rejecting = await startHttpsReceiver({ fallback: { status: 400, body: 'bad' } });
    receivers.target = await startHttpsReceiver();
    receivers.redirecting = await startHttpsReceiver({ fallback: { status: 302, headers: { location: receivers.target.url + '?from=redirect' } } });
    receivers.slow = await startHttpsReceiver({ fallback: { status: 200, delayMs: 4000 } });
    for (const name of ['ok', 'flaky', 'rejecting', 'redirecting', 'slow']) await createHook(name, receivers[name]!.url);

    const res = await t.api('POST', '/projects', {
      headers: { 'x-api-key': key },
      body: { name: 'Metro Line 4 tunnel', number: 'ML4-2026', start_date: '2026-03-01' },
    });
    expect(res.status).toBe(200);
    project = res.body.data;
  });

  afterAll(async () => {
    await Promise.all(Object.values(receivers).map((r) => r.close()));
    await t?.stop();
  });

  it('delivers the event envelope with its delivery headers, signed with the webhook secret', async () => {
    const [req] = await receivers.ok!.waitFor(1);
    const body = req!.json;
    expect(Object.keys(body).sort()).toEqual(['data', 'event_id', 'event_type', 'timestamp', 'webhook_id']);
    expect(body.event_id).toMatch(/^evt_[0-9a-z]{20}$/);
    expect(body.event_type).toBe('project.created');
    expect(body.webhook_id).toBe(hooks.ok!.id);
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(body.data).toMatchObject({ project_id: project.id, project_name: 'Metro Line 4 tunnel', number: 'ML4-2026', status: 'not_started' });

    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['x-service-event-id']).toBe(body.event_id);
    const ts = req!.headers['x-service-timestamp'] as string;
    expect(ts).toMatch(/^\d+$/);
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(300);
    // docs/rules.md#signatures, computed independently of the platform's own code …
    const expected = 'sha256=' + createHmac('sha256', hooks.ok!.secret).update(`${ts}.${req!.rawBody}`).digest('hex');
    expect(req!.headers['x-service-signature']).toBe(expected);
    // … and with the verifier we document for receivers.
    expect(verifySignature({ secret: hooks.ok!.secret, signatureHeader: expected, timestampHeader: ts, rawBody: req!.rawBody })).toBe(true);
    expect(verifySignature({ secret: hooks.flaky!.secret, signatureHeader: expected, timestampHeader: ts, rawBody: req!.rawBody })).toBe(false);
  });

  it('records the delivery as delivered with http_status and duration_ms', async () => {
    const list = await waitUntil(async () => {
      const res = await t.api('GET', `/webhooks/${hooks.ok!.id}/deliveries`, { headers: { 'x-api-key': key } });
      return res.body.data.items[0]?.status === 'delivered' ? res : null;
    });
    expect(list.status).toBe(200);
    expect(list.body.data.items).toHaveLength(1);
    const d = list.body.data.items[0];
    expect(d).toMatchObject({ event_type: 'project.created', status: 'delivered', http_status: 200, webhook_id: hooks.ok!.id });
    expect(d.delivery_id).toMatch(/^del_[0-9a-z]{20}$/);
    expect(d.event_id).toBe(receivers.ok!.requests[0]!.json.event_id);
    expect(Number.isInteger(d.duration_ms)).toBe(true);
    expect(new Date(d.delivered_at).toISOString()).toBe(d.delivered_at);
    expect(d).not.toHaveProperty('failed_at');
  });

  it('published the event once to JetStream with Nats-Msg-Id = event_id and marked the outbox row', async () => {
    const eventId = receivers.ok!.requests[0]!.json.event_id;
    const messages = await t.stream.messages();
    expect(messages.filter((m) => m.data.event_type === 'project.created')).toHaveLength(1);
    expect(messages[0]!.msgId).toBe(eventId);
    expect(messages[0]!.subject).toBe(`${t.stream.subjectPrefix}.project.created`);
    const outbox = await queryTestDatabase<{ event_id: string; dispatched: boolean }>(
      t.db.url,
      'SELECT event_id, dispatched_at IS NOT NULL AS dispatched FROM projects.outbox',
    );
    expect(outbox).toEqual([{ event_id: eventId, dispatched: true }]);
  });

  it('re-sends the same event_id after the back-off when the receiver answered 500', async () => {
    const [first, second] = await receivers.flaky!.waitFor(2, 15_000);
    expect(second!.json.event_id).toBe(first!.json.event_id);
    expect(second!.rawBody).toBe(first!.rawBody);
    // retry_interval 1 s: the retry waits at least that long.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(950);
    const d = await waitUntil(async () => {
      const res = await t.api('GET', `/webhooks/${hooks.flaky!.id}/deliveries`, { headers: { 'x-api-key': key } });
      return res.body.data.items[0]?.status === 'delivered' ? res.body.data.items[0] : null;
    });
    expect(d.http_status).toBe(200);
    const attempts = await queryTestDatabase<{ attempt: number; http_status: number; outcome: string }>(
      t.db.url,
      'SELECT attempt, http_status, outcome FROM webhooks.delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [d.delivery_id],
    );
    expect(attempts).toEqual([
      { attempt: 1, http_status: 500, outcome: 'retry' },
      { attempt: 2, http_status: 200, outcome: 'delivered' },
    ]);
  });

  it('records a 400 as failed and does not retry', async () => {
    await receivers.rejecting!.waitFor(1);
    const d = await waitUntil(async () => {
      const res = await t.api('GET', `/webhooks/${hooks.rejecting!.id}/deliveries?status=failed`, { headers: { 'x-api-key': key } });
      return res.body.data.items[0];
    });
    expect(d).toMatchObject({ status: 'failed', http_status: 400, retry_count: 0 });
    expect(d.error).toMatch(/400/);
    expect(new Date(d.failed_at).toISOString()).toBe(d.failed_at);
    // The marker that the 1 s back-off has passed: a probe hook, subscribed only now, answers 500 to
    // its first attempt; its retry is due a back-off after a failure later than this one, so by the
    // time it arrives a retry of the rejected delivery would have been sent first.
    receivers.probe = await startHttpsReceiver({ replies: [{ status: 500 }] });
    const probe = await t.api('POST', '/webhooks', {
      headers: { 'x-api-key': key },
      body: { name: 'probe', url: receivers.probe.url, events: ['project.status_changed'], retry_policy: { max_retries: 3, retry_interval: 1 }, active: true },
    });
    expect(probe.status).toBe(200);
    expect((await t.api('PUT', `/projects/${project.id}/status`, { headers: { 'x-api-key': key }, body: { status: 'in_progress' } })).status).toBe(200);
    const [failedProbe, retriedProbe] = await receivers.probe.waitFor(2, 15_000);
    expect(retriedProbe!.json.event_id).toBe(failedProbe!.json.event_id);
    expect(receivers.rejecting!.requests).toHaveLength(1);
  });

  it('follows a 302 redirect and delivers the same signed body to the final URL', async () => {
    const [redirected] = await receivers.redirecting!.waitFor(1);
    const [final] = await receivers.target!.waitFor(1);
    expect(final!.path).toBe('/hook?from=redirect');
    expect(final!.rawBody).toBe(redirected!.rawBody);
    expect(final!.headers['x-service-signature']).toBe(redirected!.headers['x-service-signature']);
    const d = await waitUntil(async () => {
      const res = await t.api('GET', `/webhooks/${hooks.redirecting!.id}/deliveries`, { headers: { 'x-api-key': key } });
      return res.body.data.items[0]?.status === 'delivered' ? res.body.data.items[0] : null;
    });
    expect(d.http_status).toBe(200);
  });

  it('does not let a slow receiver hold up the others', async () => {
    const [slow] = await receivers.slow!.waitFor(1);
    const [fast] = await receivers.ok!.waitFor(1);
    // The slow receiver answers after 4 s; the fast one was served without waiting for it.
    expect(fast!.receivedAt).toBeLessThan(slow!.receivedAt + 4000);
    const d = await waitUntil(
      async () => {
        const res = await t.api('GET', `/webhooks/${hooks.slow!.id}/deliveries`, { headers: { 'x-api-key': key } });
        return res.body.data.items[0]?.status === 'delivered' ? res.body.data.items[0] : null;
      },
      { timeoutMs: 15_000 },
    );
    expect(d.duration_ms).toBeGreaterThanOrEqual(4000);
  });
});
