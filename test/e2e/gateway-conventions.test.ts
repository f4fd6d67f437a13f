import net from 'node:net';
import { httpsRequest, queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Conventions every endpoint shares: HTTPS only, request ids, envelopes, body limits.
describe('gateway conventions', () => {
  let t: TestPlatform;
  let key: string;
  const projectCount = async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM projects.projects'))[0]!.n;
  const outboxCount = async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM projects.outbox'))[0]!.n;

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write', 'system:read']);
  });
  afterAll(() => t?.stop());

  it('puts the same request id in the X-Request-Id header and meta.request_id of a success', async () => {
    const res = await t.api('GET', '/projects', { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(200);
    expect(res.body.meta.request_id).toMatch(/^req_[0-9a-z]{20}$/);
    expect(res.headers['x-request-id']).toBe(res.body.meta.request_id);
    expect(res.body.data).toEqual({ items: [], next_cursor: null, has_more: false });
  });

  it('gives every request a different id', async () => {
    const a = await t.api('GET', '/healthz');
    const b = await t.api('GET', '/healthz');
    expect(a.body.meta.request_id).not.toBe(b.body.meta.request_id);
  });

  it('refuses plain HTTP with the error envelope and creates nothing', async () => {
    const body = JSON.stringify({ name: 'Plain', number: 'PLAIN-1' });
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(t.platform.gateway.port, '127.0.0.1', () => {
        socket.write(
          `POST /v3/projects HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const [head, payload] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400/);
    const envelope = JSON.parse(payload!);
    expect(envelope.code).toBe(400001);
    expect(envelope.data.field).toBe('scheme');
    expect(envelope.data.suggestion).toMatch(/https:\/\//);
    expect(head).toMatch(new RegExp(`x-request-id: ${envelope.meta.request_id}`, 'i'));
    expect(await projectCount()).toBe(0);
  });

  it('answers malformed JSON with 400002 and stores nothing', async () => {
    const res = await t.api('POST', '/projects', { headers: { 'x-api-key': key }, rawBody: '{"name": "Dam", "number": ' });
    expectError(res, 400002);
    expect(res.body.data.detail).toMatch(/not valid JSON/);
    expect(await projectCount()).toBe(0);
    expect(await outboxCount()).toBe(0);
  });

  it('answers a wrong Content-Type with 400002', async () => {
    const res = await t.api('POST', '/projects', { headers: { 'x-api-key': key, 'content-type': 'text/plain' }, rawBody: 'name=Dam' });
    expectError(res, 400002, 'Content-Type');
  });

  it('answers a JSON body that is not an object with 400002', async () => {
    const res = await t.api('POST', '/projects', { headers: { 'x-api-key': key }, rawBody: '[1,2,3]' });
    expectError(res, 400002);
  });

  it('answers a body over 5 MB with 400005 and stores nothing', async () => {
    const big = JSON.stringify({ name: 'Big', number: 'BIG-1', description: 'x'.repeat(5 * 1024 * 1024) });
    const res = await t.api('POST', '/projects', { headers: { 'x-api-key': key }, rawBody: big });
    expectError(res, 400005);
    expect(await projectCount()).toBe(0);
  });

  it('answers an unknown path with the 404 envelope naming the path, with or without credentials', async () => {
    const res = await t.api('GET', '/no-such-thing', { headers: { 'x-api-key': key } });
    expectError(res, 404015, 'path');
    expect(res.body.data.detail).toBe('No endpoint GET "/v3/no-such-thing".');
    const anonymous = await httpsRequest(`${t.base.replace(/\/v3$/, '')}/nowhere/at/all`, { method: 'POST' });
    expectError(anonymous, 404015, 'path');
    expect(anonymous.body.data.detail).toBe('No endpoint POST "/nowhere/at/all".');
  });

  it('serves /healthz and /readyz without authentication', async () => {
    const h = await t.api('GET', '/healthz');
    expect(h.status).toBe(200);
    expect(h.body.data.status).toBe('ok');
    const r = await t.api('GET', '/readyz');
    expect(r.status).toBe(200);
    // Its own readiness only: no internal service is named on the public port (ADR 0045).
    expect(r.body.data).toEqual({ status: 'ready' });
  });

  it('serves the error catalogue: one code with GET /errors/{code}', async () => {
    const res = await t.api('GET', '/errors/422303', { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ error_code: '422303', message: 'project not started', category: 'business_rule' });
    expect(res.body.data.common_causes.length).toBeGreaterThan(0);
    expect(res.body.data.solutions.length).toBeGreaterThan(0);
    expect(res.body.data.example).toHaveProperty('request');
    expect(res.body.data.example).toHaveProperty('correct');
  });

  it('refuses an error code that is not six digits (400004) or not in the catalogue (400003)', async () => {
    expectError(await t.api('GET', '/errors/4040', { headers: { 'x-api-key': key } }), 400004, 'error_code');
    expectError(await t.api('GET', '/errors/404999', { headers: { 'x-api-key': key } }), 400003, 'error_code');
  });

  it('lists the whole catalogue with GET /errors (system:read)', async () => {
    const res = await t.api('GET', '/errors', { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    const codes = res.body.data.items.map((e: { error_code: string }) => e.error_code);
    for (const c of ['400001', '401002', '403001', '404008', '409005', '422304', '429005', '500005', '503003']) expect(codes).toContain(c);
    const noSystemRead = await t.apiKey(['project:read']);
    expectError(await t.api('GET', '/errors', { headers: { 'x-api-key': noSystemRead } }), 401004);
  });

  it('links documentation_url to the error lookup of the same code', async () => {
    const res = await t.api('GET', '/projects/prj_00000000000000000000', { headers: { 'x-api-key': key } });
    expectError(res, 404001, 'project_id');
    expect(res.body.meta.documentation_url).toBe(`https://localhost:${t.platform.gateway.port}/docs/errors/404001`);
  });
});
