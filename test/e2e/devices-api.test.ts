import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Devices over HTTPS: CRUD, serial numbers unique per tenant environment, calibration dates,
// If-Match, filters, 404008, and the sandbox keeping its own devices.
describe('devices over the API', () => {
  let t: TestPlatform;
  let key: string;
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const post = (body: Record<string, unknown>) => t.api('POST', '/devices', { headers: h(), body: { model: 'Leica TM60', type: 'total_station', ...body } });
  const serials = async () =>
    (await queryTestDatabase<{ serial_number: string }>(t.db.url, 'SELECT serial_number FROM projects.devices ORDER BY serial_number')).map(
      (r) => r.serial_number,
    );

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write']);
  });
  afterAll(() => t?.stop());

  it('creates a device and reads it back', async () => {
    const res = await post({
      serial_number: 'TS-0001',
      name: 'Station A',
      manufacturer: 'Leica',
      calibrated_at: '2026-01-10',
      calibration_due_at: '2027-01-10',
    });
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^dev_[0-9a-z]{20}$/),
      serial_number: 'TS-0001',
      name: 'Station A',
      model: 'Leica TM60',
      type: 'total_station',
      manufacturer: 'Leica',
      status: 'active',
      calibrated_at: '2026-01-10',
      calibration_due_at: '2027-01-10',
      description: null,
      created_at: res.body.data.created_at,
      updated_at: res.body.data.created_at,
      version: 1,
    });
    expect((await t.api('GET', `/devices/${res.body.data.id}`, { headers: h() })).body.data).toEqual(res.body.data);
  });

  it('refuses a duplicate serial number (409007) and bad values, storing nothing', async () => {
    await post({ serial_number: 'TS-DUP' });
    const before = await serials();
    expectError(await post({ serial_number: 'TS-DUP' }), 409007, 'serial_number');
    expectError(await post({ serial_number: 'TS-X', type: 'drone' }), 422103, 'type');
    expectError(await post({ serial_number: 'TS-X', status: 'lost' }), 422103, 'status');
    expectError(await post({ serial_number: 'TS-X', calibrated_at: '2026-05-01', calibration_due_at: '2026-01-01' }), 422204, 'calibration_due_at');
    expectError(await post({ serial_number: 'TS-X', calibrated_at: '01.05.2026' }), 400004, 'calibrated_at');
    expectError(await t.api('POST', '/devices', { headers: h(), body: { serial_number: 'TS-X', type: 'gnss' } }), 422101, 'model');
    expect(await serials()).toEqual(before);
  });

  it('keeps the sandbox’s devices apart', async () => {
    const sandboxKey = await t.apiKey(['project:read', 'project:write'], { sandbox: true });
    const res = await t.api('POST', '/devices', {
      headers: { 'x-api-key': sandboxKey },
      body: { serial_number: 'TS-DUP', model: 'M', type: 'gnss' },
      sandbox: true,
    });
    expect(res.status).toBe(200);
    expect((await t.api('GET', '/devices', { headers: { 'x-api-key': sandboxKey }, sandbox: true })).body.data.items).toHaveLength(1);
    expectError(await t.api('GET', `/devices/${res.body.data.id}`, { headers: h() }), 404008, 'device_id');
  });

  it('patches with If-Match and nulls, deletes, then answers 404008', async () => {
    const d = (await post({ serial_number: 'TS-PATCH', calibrated_at: '2026-01-01' })).body.data;
    const u = await t.api('PATCH', `/devices/${d.id}`, { headers: h({ 'if-match': '"1"' }), body: { status: 'maintenance', calibrated_at: null } });
    expect(u.body.data).toMatchObject({ status: 'maintenance', calibrated_at: null, version: 2 });
    expectError(await t.api('PATCH', `/devices/${d.id}`, { headers: h({ 'if-match': '"1"' }), body: { model: 'Stale' } }), 409004, 'version');
    expectError(await t.api('PATCH', `/devices/${d.id}`, { headers: h(), body: { serial_number: 'TS-DUP' } }), 409007, 'serial_number');
    expect((await t.api('DELETE', `/devices/${d.id}`, { headers: h({ 'if-match': '"2"' }) })).body.data).toMatchObject({ id: d.id, deleted: true });
    expectError(await t.api('GET', `/devices/${d.id}`, { headers: h() }), 404008, 'device_id');
    expectError(await t.api('DELETE', `/devices/${d.id}`, { headers: h() }), 404008, 'device_id');
    expectError(await t.api('GET', '/devices/TS-PATCH', { headers: h() }), 400004, 'device_id');
  });

  it('filters by type, status and q, and pages', async () => {
    const g = (await post({ serial_number: 'GN-LIST', type: 'gnss', model: 'Trimble R12' })).body.data;
    const ids = async (qs: string) => (await t.api('GET', `/devices?${qs}`, { headers: h() })).body.data.items.map((x: { id: string }) => x.id);
    expect(await ids('type=gnss')).toEqual([g.id]);
    expect(await ids('q=trimble')).toEqual([g.id]);
    expect(await ids('status=retired')).toEqual([]);
    const first = await t.api('GET', '/devices?limit=1', { headers: h() });
    expect(first.body.data).toMatchObject({ items: [{ id: g.id }], has_more: true });
    expectError(await t.api('GET', '/devices?type=drone', { headers: h() }), 422103, 'type');
    expectError(await t.api('GET', '/devices', { headers: { 'x-api-key': await t.apiKey(['task:read']) } }), 401004);
  });
});
