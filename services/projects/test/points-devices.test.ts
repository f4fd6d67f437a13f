import { isGeodetic, type projects } from '@mp/contracts';
import { expectRefused, startTestProjects, type TestProjects } from './support/harness.js';

// Monitoring points (number unique per project, sensor types, thresholds, devices, bounds) and
// devices (serial number unique per tenant environment, calibration dates).
describe('monitoring points and devices', () => {
  let t: TestProjects;
  let project: projects.Project;
  let seq = 0;
  const point = (over: Partial<projects.CreatePointRequest> = {}): projects.CreatePointRequest => ({
    projectId: project.id,
    number: `JC-${++seq}`,
    name: 'Crown settlement',
    sensorType: 'total_station',
    reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
    warningThreshold: 20,
    alarmThreshold: 30,
    ...over,
  });
  const device = (over: Partial<projects.CreateDeviceRequest> = {}): projects.CreateDeviceRequest => ({
    serialNumber: `SN-${++seq}`,
    model: 'Leica TM60',
    type: 'total_station',
    ...over,
  });
  const pointCount = async () => (await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM projects.points'))[0]!.n;

  beforeAll(async () => {
    t = await startTestProjects();
    project = await t.client.createProject({ name: 'Riverside excavation', number: 'RX-1' }, t.key);
  });
  afterAll(() => t?.stop());

  describe('points', () => {
    it('creates a point with every field and reads it back', async () => {
      const dev = await t.client.createDevice(device(), t.key);
      const p = await t.client.createPoint(
        point({ number: 'JC-01', abruptChangeLimit: 15, precision: 0.5, deviceId: dev.id, description: 'Vault crown' }),
        t.key,
      );
      expect(p).toEqual({
        id: p.id,
        projectId: project.id,
        number: 'JC-01',
        name: 'Crown settlement',
        sensorType: 'total_station',
        reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
        warningThreshold: 20,
        alarmThreshold: 30,
        abruptChangeLimit: 15,
        precision: 0.5,
        deviceId: dev.id,
        active: true,
        triggerLevels: [],
        derivedChannels: [],
        description: 'Vault crown',
        createdAt: p.createdAt,
        updatedAt: p.createdAt,
        version: 1,
      });
      expect(p.id).toMatch(/^pt_[0-9a-z]{20}$/);
      expect(await t.client.getPoint({ id: p.id }, t.key)).toEqual(p);
    });

    it('refuses a duplicate number in the same project with 409002, and allows it in another project', async () => {
      await t.client.createPoint(point({ number: 'DUP-1' }), t.key);
      const before = await pointCount();
      await expectRefused(t.client.createPoint(point({ number: 'DUP-1' }), t.key), '409002', 'number');
      expect(await pointCount()).toBe(before);
      const other = await t.client.createProject({ name: 'Other site', number: 'RX-2' }, t.key);
      expect((await t.client.createPoint(point({ projectId: other.id, number: 'DUP-1' }), t.key)).number).toBe('DUP-1');
      const second = await t.client.createPoint(point({ number: 'DUP-2' }), t.key);
      await expectRefused(t.client.updatePoint({ id: second.id, number: 'DUP-1', clear: [] }, t.key), '409002', 'number');
    });

    it.each([
      [{ sensorType: 'laser' }, '422103', 'sensor_type'],
      [{ warningThreshold: 30, alarmThreshold: 30 }, '422204', 'thresholds.warning'],
      [{ warningThreshold: 40, alarmThreshold: 30 }, '422204', 'thresholds.warning'],
      [{ warningThreshold: -1 }, '400003', 'thresholds.warning'],
      [{ abruptChangeLimit: 0 }, '400003', 'abrupt_change_limit'],
      [{ precision: -0.1 }, '400003', 'precision'],
      [{ deviceId: 'dev_zzzzzzzzzzzzzzzzzzzz' }, '422104', 'device_id'],
      [{ deviceId: 'serial-9' }, '400004', 'device_id'],
      [{ number: '' }, '400003', 'number'],
      [{ name: 'n'.repeat(101) }, '400003', 'name'],
    ] as [Partial<projects.CreatePointRequest>, string, string][])('refuses %j with %s on %s and stores nothing', async (over, code, field) => {
      const before = await pointCount();
      await expectRefused(t.client.createPoint(point(over), t.key), code, field);
      expect(await pointCount()).toBe(before);
    });

    it('accepts every documented sensor type', async () => {
      for (const sensorType of [
        'total_station',
        'gnss',
        'level',
        'inclinometer',
        'tiltmeter',
        'settlement_gauge',
        'extensometer',
        'crack_meter',
        'piezometer',
        'strain_gauge',
        'water_level_gauge',
      ]) {
        // Displacement thresholds and reference coordinates belong to the geodetic types; the
        // other instruments take trigger levels on their channels (docs/instruments.md).
        const req = isGeodetic(sensorType) ? point({ sensorType }) : { ...point({ sensorType }), reference: undefined, warningThreshold: 0, alarmThreshold: 0 };
        expect((await t.client.createPoint(req, t.key)).sensorType).toBe(sensorType);
      }
    });

    it('keeps references inside the project bounds (422201)', async () => {
      const bounded = await t.client.createProject(
        { name: 'Bounded', number: 'RX-3', bounds: { minX: 3e6, maxX: 4e6, minY: 4e5, maxY: 6e5, minZ: -100, maxZ: 500 } },
        t.key,
      );
      await expectRefused(t.client.createPoint(point({ projectId: bounded.id, reference: { x: 3.5e6, y: 7e5, z: 10 } }), t.key), '422201', 'reference.y');
      const inside = await t.client.createPoint(point({ projectId: bounded.id }), t.key);
      await expectRefused(t.client.updatePoint({ id: inside.id, reference: { x: 3.5e6, y: 5e5, z: 900 }, clear: [] }, t.key), '422201', 'reference.z');
      expect((await t.client.getPoint({ id: inside.id }, t.key)).reference).toEqual({ x: 3512345.1, y: 512345.6, z: 45.3 });
    });

    it('updates with merged rules and optimistic concurrency, clears optional fields, deletes', async () => {
      const dev = await t.client.createDevice(device(), t.key);
      const p = await t.client.createPoint(point({ deviceId: dev.id, precision: 1 }), t.key);
      await expectRefused(t.client.updatePoint({ id: p.id, warningThreshold: 35, clear: [] }, t.key), '422204', 'thresholds.warning');
      const u = await t.client.updatePoint(
        { id: p.id, expectedVersion: 1, alarmThreshold: 50, warningThreshold: 35, active: false, clear: ['device_id', 'precision'] },
        t.key,
      );
      expect(u).toMatchObject({ warningThreshold: 35, alarmThreshold: 50, active: false, version: 2 });
      expect(u.deviceId).toBeUndefined();
      expect(u.precision).toBeUndefined();
      await expectRefused(t.client.updatePoint({ id: p.id, expectedVersion: 1, name: 'Stale', clear: [] }, t.key), '409004', 'version');
      await expectRefused(t.client.updatePoint({ id: p.id, sensorType: 'radar', clear: [] }, t.key), '422103', 'sensor_type');
      await expectRefused(t.client.updatePoint({ id: p.id, deviceId: 'dev_zzzzzzzzzzzzzzzzzzzz', clear: [] }, t.key), '422104', 'device_id');
      expect((await t.client.getPoint({ id: p.id }, t.key)).version).toBe(2);
      await expectRefused(t.client.deletePoint({ id: p.id, expectedVersion: 1 }, t.key), '409004', 'version');
      await t.client.deletePoint({ id: p.id, expectedVersion: 2 }, t.key);
      await expectRefused(t.client.getPoint({ id: p.id }, t.key), '404003', 'point_id');
      await expectRefused(t.client.getPoint({ id: 'p-1' }, t.key), '400004', 'point_id');
    });

    it('filters by sensor type, active, device and q, and pages', async () => {
      const p = await t.client.createProject({ name: 'Lists', number: 'RX-4' }, t.key);
      const dev = await t.client.createDevice(device(), t.key);
      const a = await t.client.createPoint(point({ projectId: p.id, number: 'GN-1', name: 'GNSS north', sensorType: 'gnss', deviceId: dev.id }), t.key);
      const b = await t.client.createPoint(point({ projectId: p.id, number: 'LV-1', name: 'Level east', sensorType: 'level', active: false }), t.key);
      const c = await t.client.createPoint(point({ projectId: p.id, number: 'LV-2', name: 'Level west', sensorType: 'level' }), t.key);
      const list = (f: Partial<projects.ListPointsRequest>) =>
        t.client.listPoints({ projectId: p.id, page: undefined, ...f }, t.key).then((l) => l.items.map((x) => x.id));
      expect(await list({ sensorType: 'level' })).toEqual([c.id, b.id]);
      expect(await list({ active: false })).toEqual([b.id]);
      expect(await list({ deviceId: dev.id })).toEqual([a.id]);
      expect(await list({ q: 'north' })).toEqual([a.id]);
      expect(await list({ q: 'LV-' })).toEqual([c.id, b.id]);
      const first = await t.client.listPoints({ projectId: p.id, page: { limit: 2, cursor: '' } }, t.key);
      const rest = await t.client.listPoints({ projectId: p.id, page: { limit: 2, cursor: first.page!.nextCursor! } }, t.key);
      expect([...first.items, ...rest.items].map((x) => x.id)).toEqual([c.id, b.id, a.id]);
      await expectRefused(list({ sensorType: 'sonar' }), '422103', 'sensor_type');
    });
  });

  describe('devices', () => {
    it('creates a device and reads it back', async () => {
      const d = await t.client.createDevice(
        device({
          serialNumber: 'TS-0001',
          name: 'Station A',
          manufacturer: 'Leica',
          status: 'maintenance',
          calibratedAt: '2026-01-10',
          calibrationDueAt: '2027-01-10',
          description: 'North portal',
        }),
        t.key,
      );
      expect(d).toEqual({
        id: d.id,
        serialNumber: 'TS-0001',
        name: 'Station A',
        model: 'Leica TM60',
        type: 'total_station',
        manufacturer: 'Leica',
        status: 'maintenance',
        calibratedAt: '2026-01-10',
        calibrationDueAt: '2027-01-10',
        description: 'North portal',
        createdAt: d.createdAt,
        updatedAt: d.createdAt,
        version: 1,
      });
      expect(d.id).toMatch(/^dev_[0-9a-z]{20}$/);
      expect(await t.client.getDevice({ id: d.id }, t.key)).toEqual(d);
      expect((await t.client.createDevice(device(), t.key)).status).toBe('active');
    });

    it('keeps serial numbers unique per tenant environment (409007), not across them', async () => {
      await t.client.createDevice(device({ serialNumber: 'SN-UNIQUE' }), t.key);
      await expectRefused(t.client.createDevice(device({ serialNumber: 'SN-UNIQUE' }), t.key), '409007', 'serial_number');
      expect(await t.sql("SELECT id FROM projects.devices WHERE serial_number = 'SN-UNIQUE'")).toHaveLength(1);
      expect((await t.client.createDevice(device({ serialNumber: 'SN-UNIQUE' }), { ...t.key, environment: 'sandbox' })).serialNumber).toBe('SN-UNIQUE');
      expect((await t.client.createDevice(device({ serialNumber: 'SN-UNIQUE' }), { ...t.key, tenantId: 'ten_anotheranotheranoth' })).serialNumber).toBe(
        'SN-UNIQUE',
      );
      const other = await t.client.createDevice(device(), t.key);
      await expectRefused(t.client.updateDevice({ id: other.id, serialNumber: 'SN-UNIQUE', clear: [] }, t.key), '409007', 'serial_number');
    });

    it.each([
      [{ type: 'camera' }, '422103', 'type'],
      [{ status: 'broken' }, '422103', 'status'],
      [{ calibratedAt: '10/01/2026' }, '400004', 'calibrated_at'],
      [{ calibratedAt: '2026-05-01', calibrationDueAt: '2026-04-01' }, '422204', 'calibration_due_at'],
      [{ model: '' }, '400003', 'model'],
    ] as [Partial<projects.CreateDeviceRequest>, string, string][])('refuses %j with %s on %s', async (over, code, field) => {
      const before = (await t.sql('SELECT id FROM projects.devices')).length;
      await expectRefused(t.client.createDevice(device(over), t.key), code, field);
      expect(await t.sql('SELECT id FROM projects.devices')).toHaveLength(before);
    });

    it('updates with optimistic concurrency and merged calibration dates; deleting detaches its points; then 404008', async () => {
      const d = await t.client.createDevice(device({ calibratedAt: '2026-01-01' }), t.key);
      await expectRefused(t.client.updateDevice({ id: d.id, calibrationDueAt: '2025-12-31', clear: [] }, t.key), '422204', 'calibration_due_at');
      const u = await t.client.updateDevice(
        { id: d.id, expectedVersion: 1, status: 'retired', calibrationDueAt: '2027-01-01', clear: ['calibrated_at'] },
        t.key,
      );
      expect(u).toMatchObject({ status: 'retired', calibrationDueAt: '2027-01-01', version: 2 });
      expect(u.calibratedAt).toBeUndefined();
      await expectRefused(t.client.updateDevice({ id: d.id, expectedVersion: 1, model: 'X', clear: [] }, t.key), '409004', 'version');
      const p = await t.client.createPoint(point({ deviceId: d.id }), t.key);
      // Another tenant's device is 403003 and shows nothing; the sandbox of this tenant does not have it.
      await expectRefused(t.client.getDevice({ id: d.id }, { ...t.key, tenantId: 'ten_anotheranotheranoth' }), '403003', 'device_id');
      await expectRefused(t.client.updateDevice({ id: d.id, model: 'X', clear: [] }, { ...t.key, tenantId: 'ten_anotheranotheranoth' }), '403003', 'device_id');
      await expectRefused(t.client.getDevice({ id: d.id }, { ...t.key, environment: 'sandbox' }), '404008', 'device_id');
      await expectRefused(t.client.getPoint({ id: p.id }, { ...t.key, tenantId: 'ten_anotheranotheranoth' }), '403003', 'point_id');
      await expectRefused(t.client.getPoint({ id: p.id }, { ...t.key, environment: 'sandbox' }), '404003', 'point_id');
      await expectRefused(t.client.createPoint(point({ deviceId: d.id }), { ...t.key, environment: 'sandbox' }), '404001', 'project_id');
      await expectRefused(t.client.deleteDevice({ id: d.id, expectedVersion: 1 }, t.key), '409004', 'version');
      await t.client.deleteDevice({ id: d.id }, t.key);
      await expectRefused(t.client.getDevice({ id: d.id }, t.key), '404008', 'device_id');

      await expectRefused(t.client.getDevice({ id: 'dev-1' }, t.key), '400004', 'device_id');
      expect((await t.client.getPoint({ id: p.id }, t.key)).deviceId).toBeUndefined();
    });

    it('filters by status, type and q, and pages', async () => {
      const tenant = { ...t.key, tenantId: 'ten_devicelistsdevicel' };
      const a = await t.client.createDevice(device({ serialNumber: 'GN-100', type: 'gnss', model: 'Trimble R12' }), tenant);
      const b = await t.client.createDevice(device({ serialNumber: 'TS-100', status: 'inactive' }), tenant);
      const c = await t.client.createDevice(device({ serialNumber: 'TS-200' }), tenant);
      const list = (f: Partial<projects.ListDevicesRequest>) => t.client.listDevices({ page: undefined, ...f }, tenant).then((l) => l.items.map((x) => x.id));
      expect(await list({ type: 'total_station' })).toEqual([c.id, b.id]);
      expect(await list({ status: 'inactive' })).toEqual([b.id]);
      expect(await list({ q: 'trimble' })).toEqual([a.id]);
      const first = await t.client.listDevices({ page: { limit: 2, cursor: '' } }, tenant);
      const rest = await t.client.listDevices({ page: { limit: 2, cursor: first.page!.nextCursor! } }, tenant);
      expect([...first.items, ...rest.items].map((x) => x.id)).toEqual([c.id, b.id, a.id]);
      await expectRefused(list({ type: 'drone' }), '422103', 'type');
    });
  });
});
