import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

describe('projects (first cut)', () => {
  let t: TestPlatform;
  let key: string;
  const h = () => ({ 'x-api-key': key });
  const outboxRows = () =>
    queryTestDatabase<{ event_type: string; data: Record<string, unknown> }>(
      t.db.url,
      'SELECT event_type, data::json AS data FROM projects.outbox ORDER BY seq',
    );

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write']);
  });
  afterAll(() => t?.stop());

  it('creates a project and writes project.created to the outbox in the same transaction', async () => {
    const res = await t.api('POST', '/projects', {
      headers: h(),
      body: { name: 'North slope', number: 'NS-001', description: 'Slope above the depot', start_date: '2026-04-01', end_date: '2027-04-01' },
    });
    expect(res.status).toBe(200);
    const p = res.body.data;
    expect(p).toMatchObject({
      name: 'North slope',
      number: 'NS-001',
      description: 'Slope above the depot',
      status: 'not_started',
      start_date: '2026-04-01',
      end_date: '2027-04-01',
      version: 1,
    });
    expect(p.id).toMatch(/^prj_[0-9a-z]{20}$/);
    const rows = await queryTestDatabase(t.db.url, 'SELECT id, name, number, status FROM projects.projects WHERE id = $1', [p.id]);
    expect(rows).toEqual([{ id: p.id, name: 'North slope', number: 'NS-001', status: 'not_started' }]);
    const events = await outboxRows();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event_type: 'project.created', data: { project_id: p.id, project_name: 'North slope' } });
    const got = await t.api('GET', `/projects/${p.id}`, { headers: h() });
    // The read adds the project's open alarms, null for a key that does not read data (ADR 0088).
    expect(got.body.data).toEqual({ ...p, open_alarms: null });
  });

  it('refuses a duplicate number with 409001 and writes no second row or event', async () => {
    const res = await t.api('POST', '/projects', { headers: h(), body: { name: 'Other', number: 'NS-001' } });
    expectError(res, 409001, 'number');
    expect(await queryTestDatabase(t.db.url, "SELECT id FROM projects.projects WHERE number = 'NS-001'")).toHaveLength(1);
    expect(await outboxRows()).toHaveLength(1);
  });

  it.each([
    [{ number: 'X-1' }, 422101, 'name'],
    [{ name: 'Dam' }, 422101, 'number'],
    [{ name: 42, number: 'X-1' }, 422102, 'name'],
    [{ name: 'D', number: 'X-1' }, 400003, 'name'],
    [{ name: '  ', number: 'X-1' }, 400003, 'name'],
    [{ name: 'x'.repeat(101), number: 'X-1' }, 400003, 'name'],
    [{ name: 'Dam', number: 'X-1', start_date: '01/03/2026' }, 400004, 'start_date'],
    [{ name: 'Dam', number: 'X-1', start_date: '2026-02-30' }, 400004, 'start_date'],
    [{ name: 'Dam', number: 'X-1', start_date: '2026-03-01', end_date: '2026-02-01' }, 422204, 'end_date'],
  ])('refuses %j with %i on %s and stores nothing', async (body, code, field) => {
    const before = (await outboxRows()).length;
    expectError(await t.api('POST', '/projects', { headers: h(), body }), code, field);
    expect(await queryTestDatabase(t.db.url, "SELECT id FROM projects.projects WHERE number = 'X-1'")).toHaveLength(0);
    expect(await outboxRows()).toHaveLength(before);
  });

  it('accepts names of exactly 2 and 100 characters', async () => {
    expect((await t.api('POST', '/projects', { headers: h(), body: { name: 'AB', number: 'LEN-2' } })).status).toBe(200);
    expect((await t.api('POST', '/projects', { headers: h(), body: { name: 'y'.repeat(100), number: 'LEN-100' } })).status).toBe(200);
  });

  it('answers an unknown id with 404001 and a malformed one with 400004', async () => {
    expectError(await t.api('GET', '/projects/prj_zzzzzzzzzzzzzzzzzzzz', { headers: h() }), 404001, 'project_id');
    expectError(await t.api('GET', '/projects/12345', { headers: h() }), 400004, 'project_id');
  });

  it('pages through projects with a cursor, newest first', async () => {
    for (let i = 0; i < 5; i++) await t.api('POST', '/projects', { headers: h(), body: { name: `Page ${i}`, number: `PG-${i}` } });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await t.api('GET', `/projects?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { headers: h() });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.items.map((p: { number: string }) => p.number));
      cursor = res.body.data.next_cursor;
      expect(res.body.data.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
    expect(seen.slice(0, 5)).toEqual(['PG-4', 'PG-3', 'PG-2', 'PG-1', 'PG-0']);
    expect(pages).toBe(3);
  });

  it('refuses a bad limit (400001) and a forged cursor (400004)', async () => {
    expectError(await t.api('GET', '/projects?limit=500', { headers: h() }), 400003, 'limit');
    expectError(await t.api('GET', '/projects?limit=abc', { headers: h() }), 400001, 'limit');
    expectError(await t.api('GET', '/projects?cursor=bm90LWpzb24', { headers: h() }), 400004, 'cursor');
  });

  it('keeps the sandbox apart: a sandbox key sees no live projects', async () => {
    const sandboxKey = await t.apiKey(['project:read', 'project:write'], { sandbox: true });
    expect(sandboxKey).toMatch(/^mp_test_[A-Za-z0-9]{32}$/);
    const list = await t.api('GET', '/projects', { headers: { 'x-api-key': sandboxKey }, sandbox: true });
    expect(list.body.data.items).toEqual([]);
    // The same number is free in the sandbox.
    expect(
      (await t.api('POST', '/projects', { headers: { 'x-api-key': sandboxKey }, body: { name: 'North slope', number: 'NS-001' }, sandbox: true })).status,
    ).toBe(200);
    // A live key is not valid at the sandbox base URL.
    expectError(await t.api('GET', '/projects', { headers: h(), sandbox: true }), 401001);
  });
});
