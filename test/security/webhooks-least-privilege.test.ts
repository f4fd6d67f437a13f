import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { ALL_PERMISSIONS, expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Webhooks and OAuth clients under least privilege (ADR 0063, ADR 0064), tried as an attacker
// inside the tenant would: a limited administrator acting on a fuller one's webhooks and OAuth
// clients, a bare system:admin subscribing to payloads it cannot read, and a webhook limited to
// one project receiving another's events.
describe('webhooks and OAuth clients: least privilege', () => {
  let t: TestPlatform;
  let receiver: HttpsReceiver;
  let everyProject: HttpsReceiver;
  let full: Record<string, string>;
  let limited: Record<string, string>;
  let limitedUser: Record<string, string>;

  const webhookRow = async (id: string) =>
    (
      await queryTestDatabase<{
        url: string;
        events: string[];
        secret_sealed: string;
        next_secret_sealed: string | null;
        deleted_at: string | null;
        creator_permissions: string[];
        project_ids: string[] | null;
        version: number;
      }>(
        t.db.url,
        'SELECT url, events, secret_sealed, next_secret_sealed, deleted_at, creator_permissions, project_ids, version FROM webhooks.webhooks WHERE id = $1',
        [id],
      )
    )[0]!;
  const webhookCount = async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM webhooks.webhooks'))[0]!.n;
  const deliveryCount = async (webhookId: string) =>
    (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM webhooks.deliveries WHERE webhook_id = $1', [webhookId]))[0]!.n;
  const createProject = async (name: string) => {
    const res = await t.api('POST', '/projects', { headers: full, body: { name, number: name.toUpperCase().replace(/\W/g, ''), start_date: '2026-01-01' } });
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    receiver = await startHttpsReceiver();
    everyProject = await startHttpsReceiver();
    const admin = { authorization: `Bearer ${await t.login()}` };
    // t.apiKey names a key after its permissions, too long a name for all ten.
    const fullKey = await t.api('POST', '/api-keys', { headers: admin, body: { name: 'full administrator', permissions: ALL_PERMISSIONS } });
    expect(fullKey.status).toBe(200);
    full = { 'x-api-key': fullKey.body.data.key };
    // A limited administrator: may administer the tenant, but reads nothing.
    limited = { 'x-api-key': await t.apiKey(['system:admin']) };
    const user = { username: 'narrow.admin', password: 'narrow admin password' };
    const created = await t.api('POST', '/users', { headers: admin, body: { ...user, name: 'Narrow Admin', permissions: ['system:admin'] } });
    expect(created.status).toBe(200);
    const login = await t.api('POST', '/auth/login', { body: { ...user, grant_type: 'password' } });
    expect(login.status).toBe(200);
    limitedUser = { authorization: `Bearer ${login.body.data.access_token}` };
  });
  afterAll(async () => {
    await receiver?.close();
    await everyProject?.close();
    await t?.stop();
  });

  describe("a limited administrator cannot take over a fuller one's webhook", () => {
    let hook: { id: string; secret: string };
    let deliveryId: string;

    beforeAll(async () => {
      const res = await t.api('POST', '/webhooks', {
        headers: full,
        body: { name: 'Full admin integration', url: receiver.url, events: ['data.created', 'project.status_changed'] },
      });
      expect(res.status).toBe(200);
      hook = { id: res.body.data.id, secret: res.body.data.secret };
      const test = await t.api('POST', `/webhooks/${hook.id}/test`, { headers: full });
      expect(test.body.data.status).toBe('delivered');
      deliveryId = test.body.data.delivery_id;
    });

    it("records the maker's permissions on the webhook", async () => {
      expect((await webhookRow(hook.id)).creator_permissions.sort()).toEqual([...ALL_PERMISSIONS].sort());
    });

    it('refuses every action on it with 401004 and changes nothing', async () => {
      const before = await webhookRow(hook.id);
      const received = receiver.requests.length;
      const deliveries = await deliveryCount(hook.id);
      for (const who of [limited, limitedUser]) {
        expectError(await t.api('PUT', `/webhooks/${hook.id}`, { headers: who, body: { url: everyProject.url } }), 401004, 'webhook_id');
        const rotated = await t.api('POST', `/webhooks/${hook.id}/rotate-secret`, { headers: who, body: { grace_period_seconds: 0 } });
        expectError(rotated, 401004, 'webhook_id');
        expect(JSON.stringify(rotated.body)).not.toMatch(/whsec_/);
        expectError(await t.api('POST', `/webhooks/${hook.id}/test`, { headers: who }), 401004, 'webhook_id');
        expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries`, { headers: who }), 401004, 'webhook_id');
        expectError(await t.api('GET', `/webhooks/${hook.id}/deliveries/${deliveryId}`, { headers: who }), 401004, 'webhook_id');
        expectError(await t.api('POST', `/webhooks/${hook.id}/deliveries/${deliveryId}/resend`, { headers: who }), 401004, 'webhook_id');
        expectError(await t.api('DELETE', `/webhooks/${hook.id}`, { headers: who }), 401004, 'webhook_id');
      }
      const after = await webhookRow(hook.id);
      expect(after).toEqual(before);
      expect(after.deleted_at).toBeNull();
      expect(after.url).toBe(receiver.url);
      expect(receiver.requests.length).toBe(received);
      expect(everyProject.requests.length).toBe(0);
      expect(await deliveryCount(hook.id)).toBe(deliveries);
    });

    it('leaves the webhook to principals holding all of its permissions', async () => {
      const rotated = await t.api('POST', `/webhooks/${hook.id}/rotate-secret`, { headers: full, body: { grace_period_seconds: 0 } });
      expect(rotated.status).toBe(200);
      expect(rotated.body.data.secret).toMatch(/^whsec_/);
      expect((await t.api('DELETE', `/webhooks/${hook.id}`, { headers: full })).status).toBe(200);
    });
  });

  it("a limited administrator cannot delete a fuller one's OAuth client (401004)", async () => {
    const created = await t.api('POST', '/oauth/clients', {
      headers: full,
      body: { name: 'Partner dashboard', redirect_uris: ['https://partner.example.com/cb'] },
    });
    expect(created.status).toBe(200);
    const id = created.body.data.client_id as string;
    const stored = () =>
      queryTestDatabase<{ creator_permissions: string[] }>(t.db.url, 'SELECT creator_permissions FROM identity.oauth_clients WHERE id = $1', [id]);
    expect((await stored())[0]!.creator_permissions.sort()).toEqual([...ALL_PERMISSIONS].sort());
    expectError(await t.api('DELETE', `/oauth/clients/${id}`, { headers: limited }), 401004, 'client_id');
    expectError(await t.api('DELETE', `/oauth/clients/${id}`, { headers: limitedUser }), 401004, 'client_id');
    expect(await stored()).toHaveLength(1);
    // Its own clients stay its to delete.
    const own = await t.api('POST', '/oauth/clients', { headers: limited, body: { name: 'Own app', redirect_uris: ['https://own.example.com/cb'] } });
    expect((await t.api('DELETE', `/oauth/clients/${own.body.data.client_id}`, { headers: limited })).status).toBe(200);
    expect((await t.api('DELETE', `/oauth/clients/${id}`, { headers: full })).status).toBe(200);
    expect(await stored()).toHaveLength(0);
  });

  describe('subscribing needs what reading the payload needs', () => {
    it.each([
      [['data.created'], 'events[0]'],
      [['alarm.cleared'], 'events[0]'],
      [['task.created'], 'events[0]'],
      [['report.generated'], 'events[0]'],
      [['project.created'], 'events[0]'],
    ])('system:admin alone may not subscribe to %j (401004 on %s), and nothing is stored', async (events, field) => {
      const before = await webhookCount();
      expectError(await t.api('POST', '/webhooks', { headers: limited, body: { name: 'Siphon', url: everyProject.url, events } }), 401004, field);
      expect(await webhookCount()).toBe(before);
    });

    it('a key reading projects subscribes to project events only, at creation and on change', async () => {
      const projectsReader = { 'x-api-key': await t.apiKey(['system:admin', 'project:read']) };
      expectError(
        await t.api('POST', '/webhooks', {
          headers: projectsReader,
          body: { name: 'Mixed', url: everyProject.url, events: ['project.created', 'data.abnormal'] },
        }),
        401004,
        'events[1]',
      );
      const res = await t.api('POST', '/webhooks', { headers: projectsReader, body: { name: 'Projects', url: everyProject.url, events: ['project.created'] } });
      expect(res.status).toBe(200);
      const before = await webhookRow(res.body.data.id);
      expectError(await t.api('PUT', `/webhooks/${res.body.data.id}`, { headers: projectsReader, body: { events: ['data.abnormal'] } }), 401004, 'events[0]');
      expect(await webhookRow(res.body.data.id)).toEqual(before);
      expect(before.events).toEqual(['project.created']);
      // A fuller administrator who widens it to data events takes it out of the narrower one's reach.
      expect((await t.api('PUT', `/webhooks/${res.body.data.id}`, { headers: full, body: { events: ['project.created', 'data.abnormal'] } })).status).toBe(200);
      expectError(await t.api('PUT', `/webhooks/${res.body.data.id}`, { headers: projectsReader, body: { url: receiver.url } }), 401004, 'webhook_id');
      expect((await webhookRow(res.body.data.id)).url).toBe(everyProject.url);
      expect((await t.api('DELETE', `/webhooks/${res.body.data.id}`, { headers: full })).status).toBe(200);
    });
  });

  describe('a webhook limited to projects', () => {
    let projectA: string;
    let projectB: string;

    beforeAll(async () => {
      projectA = await createProject('Tunnel A');
      projectB = await createProject('Tunnel B');
    });

    it('refuses project_ids that are malformed, unknown or empty, and stores nothing', async () => {
      const before = await webhookCount();
      const body = (project_ids: unknown) => ({ name: 'Scoped', url: receiver.url, events: ['project.status_changed'], project_ids });
      expectError(await t.api('POST', '/webhooks', { headers: full, body: body([projectA, 'nope']) }), 400004, 'project_ids[1]');
      expectError(await t.api('POST', '/webhooks', { headers: full, body: body(['prj_zzzzzzzzzzzzzzzzzzzz']) }), 404001, 'project_ids[0]');
      expectError(await t.api('POST', '/webhooks', { headers: full, body: body([]) }), 422101, 'project_ids');
      expectError(await t.api('POST', '/webhooks', { headers: full, body: body('prj_a') }), 422102, 'project_ids');
      expect(await webhookCount()).toBe(before);
    });

    it("never delivers another project's events to it", async () => {
      const scoped = await t.api('POST', '/webhooks', {
        headers: full,
        body: { name: 'Tunnel A only', url: receiver.url, events: ['project.status_changed'], project_ids: [projectA, projectA] },
      });
      expect(scoped.status).toBe(200);
      expect(scoped.body.data.project_ids).toEqual([projectA]);
      expect((await webhookRow(scoped.body.data.id)).project_ids).toEqual([projectA]);
      const all = await t.api('POST', '/webhooks', {
        headers: full,
        body: { name: 'Every project', url: everyProject.url, events: ['project.status_changed'] },
      });
      expect(all.body.data.project_ids).toBeNull();
      const got = await t.api('GET', `/webhooks/${scoped.body.data.id}`, { headers: full });
      expect(got.body.data.project_ids).toEqual([projectA]);

      const changed = (r: HttpsReceiver, project: string) =>
        r.requests.filter((q) => q.json?.event_type === 'project.status_changed' && (q.json.data as { project_id?: string })?.project_id === project);
      // B first: once the tenant-wide receiver has A's event too, B's fan-out is long committed.
      expect((await t.api('PUT', `/projects/${projectB}/status`, { headers: full, body: { status: 'in_progress' } })).status).toBe(200);
      expect((await t.api('PUT', `/projects/${projectA}/status`, { headers: full, body: { status: 'in_progress' } })).status).toBe(200);
      await waitUntil(() => changed(everyProject, projectA).length === 1 && changed(everyProject, projectB).length === 1, {
        message: 'the tenant-wide webhook receives both projects',
      });
      await waitUntil(() => changed(receiver, projectA).length === 1, { message: "the scoped webhook receives project A's event" });
      expect(changed(receiver, projectB)).toHaveLength(0);
      const stored = await queryTestDatabase<{ project_id: string }>(
        t.db.url,
        `SELECT e.data ->> 'project_id' AS project_id FROM webhooks.deliveries d JOIN webhooks.events e ON e.event_id = d.event_id WHERE d.webhook_id = $1`,
        [scoped.body.data.id],
      );
      expect(stored).toEqual([{ project_id: projectA }]);

      // Changing the limit to B, then lifting it (null), is stored as such.
      const toB = await t.api('PUT', `/webhooks/${scoped.body.data.id}`, { headers: full, body: { project_ids: [projectB] } });
      expect(toB.body.data.project_ids).toEqual([projectB]);
      expectError(
        await t.api('PUT', `/webhooks/${scoped.body.data.id}`, { headers: full, body: { project_ids: ['prj_zzzzzzzzzzzzzzzzzzzz'] } }),
        404001,
        'project_ids[0]',
      );
      expect((await webhookRow(scoped.body.data.id)).project_ids).toEqual([projectB]);
      const lifted = await t.api('PUT', `/webhooks/${scoped.body.data.id}`, { headers: full, body: { project_ids: null } });
      expect(lifted.body.data.project_ids).toBeNull();
      expect((await webhookRow(scoped.body.data.id)).project_ids).toBeNull();
    });
  });
});
