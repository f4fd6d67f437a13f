import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// ADR 0095: the webhooks service trusts the gateway for project
// access, and a resend hands an event to the receiver again. A delivery of a project the caller
// can no longer read (deleted), or of a project its webhook no longer takes (project_ids
// narrowed), is refused, and nothing reaches the receiver; a readable one is sent again.
describe('resending a webhook delivery needs its project', () => {
  let t: TestPlatform;
  let receiver: HttpsReceiver;
  let key: Record<string, string>;

  const delivery = async (id: string) =>
    (
      await queryTestDatabase<{ status: string; cycle: number; event_id: string }>(
        t.db.url,
        'SELECT status, cycle, event_id FROM webhooks.deliveries WHERE id = $1',
        [id],
      )
    )[0]!;
  /** The delivery of `webhookId` whose event is about project `projectId` (once it is delivered). */
  const deliveryOf = async (webhookId: string, projectId: string, eventType: string) => {
    let id = '';
    await waitUntil(
      async () => {
        const rows = await queryTestDatabase<{ id: string }>(
          t.db.url,
          `SELECT d.id FROM webhooks.deliveries d JOIN webhooks.events e USING (event_id)
            WHERE d.webhook_id = $1 AND e.data ->> 'project_id' = $2 AND d.event_type = $3 AND d.status = 'delivered'`,
          [webhookId, projectId, eventType],
        );
        id = rows[0]?.id ?? '';
        return id !== '';
      },
      { timeoutMs: 30_000, intervalMs: 100, message: `no delivered ${eventType} of ${projectId}` },
    );
    return id;
  };
  const project = async (number: string) => {
    const res = await t.api('POST', '/projects', { headers: key, body: { name: `Project ${number}`, number, start_date: '2026-01-01' } });
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };
  const webhook = async (events: string[], projectIds?: string[]) => {
    const res = await t.api('POST', '/webhooks', {
      headers: key,
      body: { name: 'resend receiver', url: receiver.url, events, ...(projectIds ? { project_ids: projectIds } : {}) },
    });
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    receiver = await startHttpsReceiver();
    key = { 'x-api-key': await t.apiKey(['system:admin', 'project:read', 'project:write']) };
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('refuses to resend an event of a deleted project with 404001 on delivery_id, and sends nothing', async () => {
    const hook = await webhook(['project.created']);
    const gone = await project('RS-GONE');
    const deliveryId = await deliveryOf(hook, gone, 'project.created');
    expect((await t.api('DELETE', `/projects/${gone}`, { headers: key })).status).toBe(200);
    const before = await delivery(deliveryId);
    const received = receiver.requests.length;

    const res = await t.api('POST', `/webhooks/${hook}/deliveries/${deliveryId}/resend`, { headers: key });
    expectError(res, 404001, 'delivery_id');
    expect(res.body.data.detail).toContain(`project ${gone}`);
    expect(await delivery(deliveryId)).toEqual(before);
    expect(before).toMatchObject({ status: 'delivered', cycle: 1 });
    // A delivery of a project that still exists is sent again (the check refuses only what it should)…
    const kept = await project('RS-KEPT');
    const keptDelivery = await deliveryOf(hook, kept, 'project.created');
    const again = await t.api('POST', `/webhooks/${hook}/deliveries/${keptDelivery}/resend`, { headers: key });
    expect(again.status).toBe(200);
    expect(again.body.data.resend_count).toBe(1);
    const events = await receiver.waitFor(received + 2);
    // … and the receiver got that one twice (first delivery, resend), never the deleted project's again.
    const ids = events.slice(received).map((r) => r.headers['x-service-event-id']);
    const keptEvent = (await delivery(keptDelivery)).event_id;
    expect(ids).toEqual([keptEvent, keptEvent]);
    expect(ids).not.toContain(before.event_id);
  });

  it('refuses to resend an event of a project the webhook no longer takes (project_ids narrowed) with 403001', async () => {
    const a = await project('RS-A');
    const b = await project('RS-B');
    const hook = await webhook(['project.status_changed'], [a, b]);
    for (const p of [a, b]) expect((await t.api('PUT', `/projects/${p}/status`, { headers: key, body: { status: 'in_progress' } })).status).toBe(200);
    const ofA = await deliveryOf(hook, a, 'project.status_changed');
    const ofB = await deliveryOf(hook, b, 'project.status_changed');
    const narrowed = await t.api('PUT', `/webhooks/${hook}`, { headers: key, body: { project_ids: [b] } });
    expect(narrowed.body.data.project_ids).toEqual([b]);
    const before = await delivery(ofA);
    const received = receiver.requests.length;

    const res = await t.api('POST', `/webhooks/${hook}/deliveries/${ofA}/resend`, { headers: key });
    expectError(res, 403001, 'delivery_id');
    expect(res.body.data.detail).toContain(`project ${a}`);
    expect(await delivery(ofA)).toEqual(before);

    // The project it still takes is sent again; A's event does not reach the receiver.
    expect((await t.api('POST', `/webhooks/${hook}/deliveries/${ofB}/resend`, { headers: key })).status).toBe(200);
    const events = await receiver.waitFor(received + 1);
    expect(events.slice(received).map((r) => r.headers['x-service-event-id'])).toEqual([(await delivery(ofB)).event_id]);
  });
});
