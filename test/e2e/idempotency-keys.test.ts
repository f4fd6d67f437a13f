import { createHash, randomUUID } from 'node:crypto';
import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Idempotency-Key (docs/rules.md#idempotency, ADR 0012) on the creating writes outside the projects
// service: POST /webhooks, POST /api-keys, POST /users, POST /oauth/clients, POST /projects/{id}/data
// and …/data/batches. Same key and body: the first response again, one row, one event. Same key,
// other body: 409006 and nothing stored. A refused request keeps no key, so its corrected retry
// goes through. Secrets shown once are replayed but stored sealed; a password is never stored.
describe('Idempotency-Key on webhooks, API keys, users, OAuth clients, data writes and batches', () => {
  let t: TestPlatform;
  let key: string;
  let token: string;
  let receiver: HttpsReceiver;
  let projectId: string;
  let point: string;
  const h = (idem: string) => ({ 'x-api-key': key, 'idempotency-key': idem });
  const bearer = (idem: string) => ({ authorization: `Bearer ${token}`, 'idempotency-key': idem });
  const sql = <R = Record<string, unknown>>(text: string, params: unknown[] = []) => queryTestDatabase<R>(t.db.url, text, params);
  const count = async (text: string, params: unknown[] = []) => (await sql<{ n: number }>(text, params))[0]!.n;
  /** The stored replay of a create that returned secrets is sealed: none of `plain` appears in it. */
  const expectSealed = async (schema: string, idem: string, plain: string[]) => {
    const [stored] = await sql<{ response: string }>(`SELECT response::text AS response FROM ${schema}.idempotency_keys WHERE key = $1`, [idem]);
    expect(stored!.response).toContain('"sealed"');
    for (const p of plain) expect(stored!.response).not.toContain(p);
  };
  const dataEvents = (type: string) =>
    sql<{ data: { records?: { data_id: string }[]; batch_id?: string } }>('SELECT data::json AS data FROM monitoring_data.outbox WHERE event_type = $1', [
      type,
    ]);
  const record = (minute: number, pointId = point) => ({
    point_id: pointId,
    measured_at: `2026-05-01T08:${String(minute).padStart(2, '0')}:00+08:00`,
    values: { dz: -1.5 },
  });

  beforeAll(async () => {
    t = await startTestPlatform();
    token = await t.login();
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write']);
    receiver = await startHttpsReceiver();
    const auth = { 'x-api-key': key };
    projectId = (await t.api('POST', '/projects', { headers: auth, body: { name: 'Harbour quay wall', number: 'IDK-1' } })).body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: auth, body: { status: 'in_progress' } })).status).toBe(200);
    const pt = await t.api('POST', `/projects/${projectId}/points`, {
      headers: auth,
      body: {
        number: 'Q-01',
        name: 'Quay settlement Q-01',
        sensor_type: 'level',
        reference: { x: 1000, y: 2000, z: 10 },
        thresholds: { warning: 20, alarm: 30 },
      },
    });
    expect(pt.status).toBe(200);
    point = pt.body.data.id;
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  describe('POST /webhooks', () => {
    const body = () => ({ name: 'Idempotent hook', url: receiver.url, events: ['data.created'] });

    it('replays the first response, secret included, without a second webhook; the secret is stored sealed', async () => {
      const idem = randomUUID();
      const first = await t.api('POST', '/webhooks', { headers: h(idem), body: body() });
      expect(first.status).toBe(200);
      const again = await t.api('POST', '/webhooks', { headers: h(idem), body: body() });
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      expect(again.body.data.secret).toMatch(/^whsec_/);
      expect(await count("SELECT count(*)::int AS n FROM webhooks.webhooks WHERE name = 'Idempotent hook'")).toBe(1);
      await expectSealed('webhooks', idem, [first.body.data.secret, first.body.data.id]);
    });

    it('answers 409006 for the same key with another body and stores nothing', async () => {
      const idem = randomUUID();
      expect((await t.api('POST', '/webhooks', { headers: h(idem), body: { ...body(), name: 'Hook A' } })).status).toBe(200);
      expectError(await t.api('POST', '/webhooks', { headers: h(idem), body: { ...body(), name: 'Hook B' } }), 409006, 'Idempotency-Key');
      expect(await count("SELECT count(*)::int AS n FROM webhooks.webhooks WHERE name IN ('Hook A', 'Hook B')")).toBe(1);
      expect(await count('SELECT count(*)::int AS n FROM webhooks.idempotency_keys WHERE key = $1', [idem])).toBe(1);
    });

    it('keeps no key for a refused create, so the corrected retry goes through', async () => {
      const idem = randomUUID();
      expectError(
        await t.api('POST', '/webhooks', { headers: h(idem), body: { ...body(), name: 'Retry hook', url: 'http://example.com/hook' } }),
        422103,
        'url',
      );
      expect(await count('SELECT count(*)::int AS n FROM webhooks.idempotency_keys WHERE key = $1', [idem])).toBe(0);
      const retried = await t.api('POST', '/webhooks', { headers: h(idem), body: { ...body(), name: 'Retry hook' } });
      expect(retried.status).toBe(200);
      expect(await count("SELECT count(*)::int AS n FROM webhooks.webhooks WHERE name = 'Retry hook'")).toBe(1);
    });
  });

  describe('POST /api-keys', () => {
    it('replays the first response with the same working key value and stores one key; the value is stored sealed', async () => {
      const idem = randomUUID();
      const body = { name: 'idempotent key', permissions: ['project:read'] };
      const first = await t.api('POST', '/api-keys', { headers: bearer(idem), body });
      expect(first.status).toBe(200);
      const again = await t.api('POST', '/api-keys', { headers: bearer(idem), body });
      expect(again.body.data).toEqual(first.body.data);
      expect(await count("SELECT count(*)::int AS n FROM identity.api_keys WHERE name = 'idempotent key'")).toBe(1);
      expect((await t.api('GET', '/projects', { headers: { 'x-api-key': again.body.data.key } })).status).toBe(200);
      await expectSealed('identity', idem, [first.body.data.key]);
    });

    it('answers 409006 for the same key with another body and stores nothing', async () => {
      const idem = randomUUID();
      expect((await t.api('POST', '/api-keys', { headers: bearer(idem), body: { name: 'key A', permissions: ['project:read'] } })).status).toBe(200);
      expectError(await t.api('POST', '/api-keys', { headers: bearer(idem), body: { name: 'key A', permissions: ['data:read'] } }), 409006, 'Idempotency-Key');
      expect(await sql("SELECT permissions FROM identity.api_keys WHERE name = 'key A'")).toEqual([{ permissions: ['project:read'] }]);
    });

    it('keeps no key for a refused create, so the corrected retry goes through', async () => {
      const idem = randomUUID();
      expectError(await t.api('POST', '/api-keys', { headers: bearer(idem), body: { name: 'k'.repeat(101), permissions: ['project:read'] } }), 400003, 'name');
      const retried = await t.api('POST', '/api-keys', { headers: bearer(idem), body: { name: 'retried key', permissions: ['project:read'] } });
      expect(retried.status).toBe(200);
      expect(await count("SELECT count(*)::int AS n FROM identity.api_keys WHERE name = 'retried key'")).toBe(1);
    });
  });

  describe('POST /users', () => {
    const body = (over: Record<string, unknown> = {}) => ({
      username: 'idem.user',
      password: 'Quay-wall-survey-2026',
      name: 'Idem User',
      permissions: ['project:read'],
      ...over,
    });
    const keyRow = (idem: string) => sql<{ row: string }>('SELECT k::text AS row FROM identity.idempotency_keys k WHERE key = $1', [idem]);

    it('replays the first response (same id) and stores one user; the password is neither in the response nor in the key row', async () => {
      const idem = randomUUID();
      const first = await t.api('POST', '/users', { headers: bearer(idem), body: body() });
      expect(first.status).toBe(200);
      expect(first.body.data.id).toMatch(/^usr_/);
      expect(JSON.stringify(first.body)).not.toContain('Quay-wall-survey-2026');
      const again = await t.api('POST', '/users', { headers: bearer(idem), body: body() });
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      expect(await sql("SELECT id FROM identity.users WHERE username = 'idem.user'")).toEqual([{ id: first.body.data.id }]);
      const rows = await keyRow(idem);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.row).toContain(first.body.data.id);
      expect(rows[0]!.row).not.toContain('Quay-wall-survey-2026');
      expect(rows[0]!.row).not.toContain('password');
    });

    it('answers 409006 for the same key with another body (another password too) and stores no user', async () => {
      const idem = randomUUID();
      expect((await t.api('POST', '/users', { headers: bearer(idem), body: body({ username: 'idem.a' }) })).status).toBe(200);
      const users = await count('SELECT count(*)::int AS n FROM identity.users');
      expectError(await t.api('POST', '/users', { headers: bearer(idem), body: body({ username: 'idem.b' }) }), 409006, 'Idempotency-Key');
      expectError(
        await t.api('POST', '/users', { headers: bearer(idem), body: body({ username: 'idem.a', password: 'Another-password-2026' }) }),
        409006,
        'Idempotency-Key',
      );
      expect(await count('SELECT count(*)::int AS n FROM identity.users')).toBe(users);
      expect(await count("SELECT count(*)::int AS n FROM identity.users WHERE username = 'idem.b'")).toBe(0);
      expect(await count('SELECT count(*)::int AS n FROM identity.idempotency_keys WHERE key = $1', [idem])).toBe(1);
    });

    it('keeps no key for a refused create (username taken, 409009), so the corrected retry goes through', async () => {
      const idem = randomUUID();
      expect((await t.api('POST', '/users', { headers: bearer(randomUUID()), body: body({ username: 'idem.taken' }) })).status).toBe(200);
      expectError(await t.api('POST', '/users', { headers: bearer(idem), body: body({ username: 'idem.taken' }) }), 409009, 'username');
      expect(await count('SELECT count(*)::int AS n FROM identity.idempotency_keys WHERE key = $1', [idem])).toBe(0);
      const retried = await t.api('POST', '/users', { headers: bearer(idem), body: body({ username: 'idem.retried' }) });
      expect(retried.status).toBe(200);
      expect(await sql("SELECT id FROM identity.users WHERE username = 'idem.retried'")).toEqual([{ id: retried.body.data.id }]);
    });
  });

  describe('POST /oauth/clients', () => {
    const body = (name: string) => ({ name, redirect_uris: ['https://partner.example.com/oauth/callback'] });

    it('replays the first response with the same client_secret and stores one client; the secret is stored sealed', async () => {
      const idem = randomUUID();
      const first = await t.api('POST', '/oauth/clients', { headers: bearer(idem), body: body('Idempotent app') });
      expect(first.status).toBe(200);
      expect(first.body.data.client_secret).toMatch(/^[A-Za-z0-9]{40}$/);
      const again = await t.api('POST', '/oauth/clients', { headers: bearer(idem), body: body('Idempotent app') });
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      const clients = await sql<{ id: string; secret_hash: string }>("SELECT id, secret_hash FROM identity.oauth_clients WHERE name = 'Idempotent app'");
      expect(clients).toEqual([{ id: first.body.data.client_id, secret_hash: createHash('sha256').update(again.body.data.client_secret).digest('hex') }]);
      await expectSealed('identity', idem, [first.body.data.client_secret, first.body.data.client_id]);
    });

    it('answers 409006 for the same key with another body and stores no client', async () => {
      const idem = randomUUID();
      expect((await t.api('POST', '/oauth/clients', { headers: bearer(idem), body: body('App A') })).status).toBe(200);
      const clients = await count('SELECT count(*)::int AS n FROM identity.oauth_clients');
      expectError(await t.api('POST', '/oauth/clients', { headers: bearer(idem), body: body('App B') }), 409006, 'Idempotency-Key');
      expect(await count('SELECT count(*)::int AS n FROM identity.oauth_clients')).toBe(clients);
      expect(await count("SELECT count(*)::int AS n FROM identity.oauth_clients WHERE name = 'App B'")).toBe(0);
    });
  });

  describe('POST /projects/{id}/data', () => {
    it('replays the first response with the same data ids: one stored record, one data.created', async () => {
      const idem = randomUUID();
      const body = { records: [record(1), record(2)] };
      const first = await t.api('POST', `/projects/${projectId}/data`, { headers: h(idem), body });
      expect(first.status).toBe(200);
      const again = await t.api('POST', `/projects/${projectId}/data`, { headers: h(idem), body });
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      const ids = first.body.data.records.map((r: { data_id: string }) => r.data_id);
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.data_records WHERE id = ANY($1::text[])', [ids])).toBe(2);
      const events = (await dataEvents('data.created')).filter((e) => e.data.records?.some((r) => ids.includes(r.data_id)));
      expect(events).toHaveLength(1);
    });

    it('lets concurrent writes with one key store once: the others wait for it and replay it', async () => {
      const idem = randomUUID();
      const body = { records: [record(5), record(6), record(7)] };
      const answers = await Promise.all([0, 1, 2, 3].map(() => t.api('POST', `/projects/${projectId}/data`, { headers: h(idem), body })));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      for (const a of answers) expect(a.body.data).toEqual(answers[0]!.body.data);
      const ids = answers[0]!.body.data.records.map((r: { data_id: string }) => r.data_id);
      expect(
        await count("SELECT count(*)::int AS n FROM monitoring_data.data_records WHERE measured_at BETWEEN '2026-05-01T00:05:00Z' AND '2026-05-01T00:07:00Z'"),
      ).toBe(3);
      expect((await dataEvents('data.created')).filter((e) => e.data.records?.some((r) => ids.includes(r.data_id)))).toHaveLength(1);
    });

    it('answers 409006 for the same key with another body and stores nothing', async () => {
      const idem = randomUUID();
      expect((await t.api('POST', `/projects/${projectId}/data`, { headers: h(idem), body: { records: [record(10)] } })).status).toBe(200);
      const before = await count('SELECT count(*)::int AS n FROM monitoring_data.data_records');
      const outbox = await count('SELECT count(*)::int AS n FROM monitoring_data.outbox');
      expectError(await t.api('POST', `/projects/${projectId}/data`, { headers: h(idem), body: { records: [record(11)] } }), 409006, 'Idempotency-Key');
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.data_records')).toBe(before);
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.outbox')).toBe(outbox);
    });

    it('keeps no key for a refused write (unknown point, 404003), so the corrected retry goes through', async () => {
      const idem = randomUUID();
      const refused = await t.api('POST', `/projects/${projectId}/data`, {
        headers: h(idem),
        body: { records: [record(20), record(21, 'pt_00000000000000000009')] },
      });
      expectError(refused, 404003, 'records[1].point_id');
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.idempotency_keys WHERE key = $1', [idem])).toBe(0);
      const retried = await t.api('POST', `/projects/${projectId}/data`, { headers: h(idem), body: { records: [record(20), record(21)] } });
      expect(retried.status).toBe(200);
      expect(retried.body.data.total_count).toBe(2);
      // the retry is replayed from now on, although its records are stored (409003 without a key)
      expect((await t.api('POST', `/projects/${projectId}/data`, { headers: h(idem), body: { records: [record(20), record(21)] } })).body.data).toEqual(
        retried.body.data,
      );
      expectError(
        await t.api('POST', `/projects/${projectId}/data`, { headers: { 'x-api-key': key }, body: { records: [record(20)] } }),
        409003,
        'records[0].measured_at',
      );
    });
  });

  describe('POST /projects/{id}/data/batches', () => {
    const batchBody = (from: number) => ({ records: Array.from({ length: 5 }, (_, i) => record(from + i)) });

    it('replays the accepted batch: one batch row, one data.batch_completed', async () => {
      const idem = randomUUID();
      const first = await t.api('POST', `/projects/${projectId}/data/batches`, { headers: h(idem), body: batchBody(30) });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ status: 'pending', total_count: 5 });
      const again = await t.api('POST', `/projects/${projectId}/data/batches`, { headers: h(idem), body: batchBody(30) });
      expect(again.body.data).toEqual(first.body.data);
      const batchId = first.body.data.batch_id;
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.batches WHERE project_id = $1 AND total_count = 5', [projectId])).toBe(1);
      await waitUntil(async () => (await dataEvents('data.batch_completed')).some((e) => e.data.batch_id === batchId));
      // A replay after processing is still the first response (the batch as accepted).
      expect((await t.api('POST', `/projects/${projectId}/data/batches`, { headers: h(idem), body: batchBody(30) })).body.data).toEqual(first.body.data);
      expect((await dataEvents('data.batch_completed')).filter((e) => e.data.batch_id === batchId)).toHaveLength(1);
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.data_records WHERE batch_id = $1', [batchId])).toBe(5);
    });

    it('answers 409006 for the same key with another body and stores nothing', async () => {
      const idem = randomUUID();
      expect((await t.api('POST', `/projects/${projectId}/data/batches`, { headers: h(idem), body: batchBody(40) })).status).toBe(200);
      const before = await count('SELECT count(*)::int AS n FROM monitoring_data.batches');
      expectError(await t.api('POST', `/projects/${projectId}/data/batches`, { headers: h(idem), body: batchBody(45) }), 409006, 'Idempotency-Key');
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.batches')).toBe(before);
    });

    it('keeps no key for a refused batch (unknown project, 404001), so the corrected retry goes through', async () => {
      const idem = randomUUID();
      expectError(await t.api('POST', '/projects/prj_00000000000000000009/data/batches', { headers: h(idem), body: batchBody(50) }), 404001, 'project_id');
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.idempotency_keys WHERE key = $1', [idem])).toBe(0);
      const retried = await t.api('POST', `/projects/${projectId}/data/batches`, { headers: h(idem), body: batchBody(50) });
      expect(retried.status).toBe(200);
      expect(await count('SELECT count(*)::int AS n FROM monitoring_data.batches WHERE id = $1', [retried.body.data.batch_id])).toBe(1);
    });
  });
});
