import { purgeIdempotencyKeys } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { expectRefused, startTestProjects, type TestProjects } from './support/harness.js';

// Idempotency-Key on creating writes: the same key and request within 24 h returns the first
// response without a second row or event; the same key with another request is 409006.
describe('Idempotency-Key on creates', () => {
  let t: TestProjects;
  const withKey = (key: string, ctx?: CallerContext): CallerContext => ({ ...(ctx ?? t.key), idempotencyKey: key });
  const rows = async (number: string) => t.sql('SELECT id FROM projects.projects WHERE number = $1', [number]);
  const createdEvents = async (id: string) => (await t.events()).filter((e) => e.data.project_id === id && e.event_type === 'project.created');

  beforeAll(async () => {
    t = await startTestProjects();
  });
  afterAll(() => t?.stop());

  it('replays the first response for the same key and body: one row, one event', async () => {
    const key = newId('request');
    const first = await t.client.createProject({ name: 'Idem', number: 'ID-1' }, withKey(key));
    const again = await t.client.createProject({ name: 'Idem', number: 'ID-1' }, withKey(key));
    expect(again).toEqual(first);
    expect(await rows('ID-1')).toHaveLength(1);
    expect(await createdEvents(first.id)).toHaveLength(1);
  });

  it('answers 409006 for the same key with another body, operation or caller, and stores nothing', async () => {
    const key = newId('request');
    const first = await t.client.createProject({ name: 'Idem two', number: 'ID-2' }, withKey(key));
    await expectRefused(t.client.createProject({ name: 'Idem two', number: 'ID-2b' }, withKey(key)), '409006', 'Idempotency-Key');
    await expectRefused(t.client.createDevice({ serialNumber: 'S-1', model: 'M', type: 'gnss' }, withKey(key)), '409006', 'Idempotency-Key');
    await expectRefused(
      t.client.createProject({ name: 'Idem two', number: 'ID-2' }, withKey(key, { ...t.key, principalId: newId('apiKey') })),
      '409006',
      'Idempotency-Key',
    );
    expect(await rows('ID-2b')).toHaveLength(0);
    expect(await t.sql("SELECT id FROM projects.devices WHERE serial_number = 'S-1'")).toHaveLength(0);
    expect(await createdEvents(first.id)).toHaveLength(1);
    // Keys are per tenant and environment: the sandbox's own key space is untouched.
    expect((await t.client.createProject({ name: 'Idem two', number: 'ID-2b' }, withKey(key, { ...t.key, environment: 'sandbox' }))).number).toBe('ID-2b');
  });

  it('lets concurrent requests with one key create once', async () => {
    const key = newId('request');
    const p = await t.client.createProject({ name: 'Concurrent', number: 'ID-3' }, t.key);
    const tasks = await Promise.all([0, 1, 2, 3, 4, 5].map(() => t.client.createTask({ projectId: p.id, name: 'Once only' }, withKey(key))));
    expect(new Set(tasks.map((x) => x.id)).size).toBe(1);
    expect(await t.sql('SELECT id FROM projects.tasks WHERE project_id = $1', [p.id])).toHaveLength(1);
    expect((await t.events()).filter((e) => e.event_type === 'task.created' && e.data.project_id === p.id)).toHaveLength(1);
  });

  it('does not keep a refused request, so the corrected retry with the same key goes through', async () => {
    const key = newId('request');
    await t.client.createProject({ name: 'Taken', number: 'ID-4' }, t.key);
    await expectRefused(t.client.createProject({ name: 'Retry', number: 'ID-4' }, withKey(key)), '409001', 'number');
    expect((await t.client.createProject({ name: 'Retry', number: 'ID-4b' }, withKey(key))).number).toBe('ID-4b');
  });

  it('covers every create: tasks, points, devices and members replay too', async () => {
    const p = await t.client.createProject({ name: 'All creates', number: 'ID-5' }, t.key);
    const point = { projectId: p.id, number: 'P-1', name: 'P', sensorType: 'level', reference: { x: 1, y: 2, z: 3 }, warningThreshold: 1, alarmThreshold: 2 };
    const k = () => withKey(newId('request'));
    const pk = k();
    expect(await t.client.createPoint(point, pk)).toEqual(await t.client.createPoint(point, pk));
    const dk = k();
    const dev = { serialNumber: 'ID-SN-1', model: 'M', type: 'level' };
    expect(await t.client.createDevice(dev, dk)).toEqual(await t.client.createDevice(dev, dk));
    const mk = k();
    const member = { projectId: p.id, userId: newId('user'), role: 'editor' };
    expect(await t.client.addMember(member, mk)).toEqual(await t.client.addMember(member, mk));
    expect(await t.sql('SELECT id FROM projects.points WHERE project_id = $1', [p.id])).toHaveLength(1);
    expect(await t.sql("SELECT id FROM projects.devices WHERE serial_number = 'ID-SN-1'")).toHaveLength(1);
  });

  it('forgets a key after 24 hours', async () => {
    const key = newId('request');
    const p = await t.client.createProject({ name: 'Window', number: 'ID-6' }, t.key);
    const first = await t.client.createTask({ projectId: p.id, name: 'Daily reading' }, withKey(key));
    t.clock.advance(23 * 3600_000);
    expect((await t.client.createTask({ projectId: p.id, name: 'Daily reading' }, withKey(key))).id).toBe(first.id);
    t.clock.advance(3600_000 + 1000);
    expect((await t.client.createTask({ projectId: p.id, name: 'Daily reading' }, withKey(key))).id).not.toBe(first.id);
    // The periodic purge removes keys past the window.
    t.clock.advance(25 * 3600_000);
    expect(await purgeIdempotencyKeys(t.replicas[0]!.database, t.clock.now())).toBeGreaterThan(0);
    expect(await t.sql('SELECT key FROM projects.idempotency_keys')).toEqual([]);
  });

  it('refuses a key longer than 255 characters with 400003', async () => {
    await expectRefused(t.client.createProject({ name: 'Long key', number: 'ID-7' }, withKey('k'.repeat(256))), '400003', 'Idempotency-Key');
    expect(await rows('ID-7')).toHaveLength(0);
  });
});
