import { payloadSchemaOf } from '@mp/events';
import { deliveryContractProblems, startHttpsReceiver, waitUntil, type HttpsReceiver, type ReceivedRequest } from '@mp/testing';
import { verifyWebhook, type WebhookEvent, type WebhookEventType } from '@mp/sdk';
import { dataProject, recordAt } from '../support/data-project.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// What a webhook receiver is promised — the event catalogue's payload schemas, published as the
// API reference's `webhooks` section and the SDK's types — against what the platform really
// sends: one webhook subscribed to every event, a project, a task, data, an alarm and a test
// delivery worked through the API, and every delivery checked three ways (signature and type with
// the SDK, the catalogue's zod schema, the document's envelope, headers and closed objects).
describe('webhook deliveries keep the event catalogue', () => {
  let t: TestPlatform;
  let receiver: HttpsReceiver;
  let key: string;
  let hook: { id: string; secret: string };
  const h = () => ({ 'x-api-key': key });
  const must = async (res: Promise<{ status: number; body: any; text: string }>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
    return r.body.data;
  };
  const delivered = (type: string) => receiver.requests.filter((r) => (r.json as { event_type?: string } | null)?.event_type === type);

  beforeAll(async () => {
    t = await startTestPlatform();
    receiver = await startHttpsReceiver();
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'task:read', 'task:write', 'data:read', 'data:write', 'report:read']);
    const events = (await t.api('GET', '/openapi.json')).body.webhooks;
    const subscribable = Object.keys(events).filter((type) => type !== 'webhook.test');
    const created = await must(t.api('POST', '/webhooks', { headers: h(), body: { name: 'everything', url: receiver.url, events: subscribable } }));
    hook = { id: created.id, secret: created.secret };
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('delivers project, task, data, alarm and test events whose envelope and data are what the catalogue says', async () => {
    const { projectId, pointId } = await dataProject(t.api, h());
    const user = await must(t.api('POST', '/users', { headers: h(), body: { username: 'li.na', password: 'li.na password!', name: 'Li Na' } }));
    await must(
      t.api('POST', `/projects/${projectId}/members`, { headers: h(), body: { user_id: user.id, role: 'editor', name: 'Li Na', phone: '13812345678' } }),
    );
    const task = await must(t.api('POST', `/projects/${projectId}/tasks`, { headers: h(), body: { name: 'Round 1', assignee_id: user.id } }));
    await must(t.api('PUT', `/tasks/${task.id}/status`, { headers: h(), body: { status: 'in_progress' } }));
    await must(t.api('PUT', `/tasks/${task.id}/status`, { headers: h(), body: { status: 'completed', remark: 'done' } }));
    const written = await must(
      t.api('POST', `/projects/${projectId}/data`, {
        headers: h(),
        body: { records: [recordAt(pointId, '2026-03-01T08:00:00+08:00', 2), recordAt(pointId, '2026-03-02T08:00:00+08:00', 25)] },
      }),
    );
    await must(t.api('PATCH', `/data/${written.records[0].data_id}`, { headers: h(), body: { remark: 'checked on site' } }));
    const alarm = (await must(t.api('GET', `/projects/${projectId}/alarms`, { headers: h() }))).items[0];
    await must(t.api('POST', `/alarms/${alarm.alarm_id}/acknowledge`, { headers: h(), body: { comment: 'crew on the way' } }));
    await must(t.api('POST', `/alarms/${alarm.alarm_id}/clear`, { headers: h(), body: {} }));
    await must(t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'completed' } }));
    await must(t.api('POST', `/webhooks/${hook.id}/test`, { headers: h() }));

    const expected: WebhookEventType[] = [
      'project.created',
      'project.status_changed',
      'project.completed',
      'task.created',
      'task.assigned',
      'task.status_changed',
      'task.completed',
      'data.created',
      'data.abnormal',
      'data.updated',
      'alarm.opened',
      'alarm.acknowledged',
      'alarm.cleared',
      'webhook.test',
    ];
    await waitUntil(() => expected.every((type) => delivered(type).length > 0), { message: 'not every event type was delivered' });

    const checked = new Set<string>();
    for (const req of receiver.requests as ReceivedRequest[]) {
      const event: WebhookEvent = verifyWebhook(hook.secret, req.headers, req.rawBody);
      expect(event.webhook_id).toBe(hook.id);
      expect(deliveryContractProblems(req.headers, req.json)).toEqual([]);
      // zod drops fields it does not know: equal after parsing means no field beyond the catalogue's
      const schema = payloadSchemaOf(event.event_type)!;
      expect(schema.parse(event.data)).toEqual(event.data);
      checked.add(event.event_type);
    }
    expect([...checked].sort()).toEqual([...expected].sort());

    // The SDK's union narrows on event_type: each event's own fields, without casts.
    const completed = verifyWebhook(hook.secret, delivered('task.completed')[0]!.headers, delivered('task.completed')[0]!.rawBody);
    if (completed.event_type !== 'task.completed') throw new Error('expected task.completed');
    expect(completed.data).toMatchObject({ task_id: task.id, previous_status: 'in_progress', current_status: 'completed', remark: 'done' });
    expect(typeof completed.data.completed_at).toBe('string');
    const cleared = verifyWebhook(hook.secret, delivered('alarm.cleared')[0]!.headers, delivered('alarm.cleared')[0]!.rawBody);
    if (cleared.event_type !== 'alarm.cleared') throw new Error('expected alarm.cleared');
    expect(cleared.data).toMatchObject({ alarm_id: alarm.alarm_id, status: 'cleared', automatic: false });
  });

  it('finds a payload that leaves the catalogue: an unknown field, a missing one, a wrong status, a missing header', async () => {
    const req = delivered('task.created')[0]!;
    const body = req.json as { data: Record<string, unknown> };
    expect(deliveryContractProblems(req.headers, { ...body, data: { ...body.data, internal_note: 'x' } }).join('\n')).toMatch(/additional properties/);
    const withoutName = Object.fromEntries(Object.entries(body.data).filter(([k]) => k !== 'task_name'));
    expect(deliveryContractProblems(req.headers, { ...body, data: withoutName }).join('\n')).toMatch(/task_name/);
    expect(deliveryContractProblems(req.headers, { ...body, data: { ...body.data, status: 'done' } }).join('\n')).toMatch(/status/);
    const unsigned = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'x-service-signature'));
    expect(deliveryContractProblems(unsigned, body)).toEqual(['header X-Service-Signature missing']);
    expect(payloadSchemaOf('task.created')!.safeParse(withoutName).success).toBe(false);
    expect(payloadSchemaOf('report.archived')).toBeUndefined();
  });
});
