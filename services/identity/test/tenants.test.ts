import { identity } from '@mp/contracts';
import { createClient } from '@mp/grpc';
import { anon, rejection, startTestIdentity, system, type TestIdentity } from './support.js';

describe('identity: tenants and plans (operator RPCs)', () => {
  let t: TestIdentity;

  beforeAll(async () => {
    t = await startTestIdentity();
  });
  afterAll(() => t?.stop());

  it('answers only the operator credential: the gateway’s is refused before the use case, and the operator key needs an operator context (401004)', async () => {
    const admin = await t.adminContext();
    // Through the gateway's credential the service answers UNAUTHENTICATED (the client's 502001).
    expect(await rejection(t.client.createTenant({ name: 'x', adminUsername: 'x.admin', adminPassword: 'x admin password' }, admin))).toMatchObject({
      code: '502001',
    });
    expect(await rejection(t.client.upsertPlan({ name: 'x', features: [], limits: undefined }, admin))).toMatchObject({ code: '502001' });
    expect(await rejection(t.client.setTenantPlan({ tenantId: admin.tenantId, plan: 'standard' }, anon()))).toMatchObject({ code: '502001' });
    // The operator's key with a user's context still stops at the use case.
    const operator = createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, `127.0.0.1:${t.service.port}`, {
      auth: t.keys.authFor('operator'),
      audience: 'identity',
    });
    try {
      expect(await rejection(operator.upsertPlan({ name: 'x', features: [], limits: undefined }, admin))).toMatchObject({ code: '401004' });
    } finally {
      operator.close();
    }
    expect(await t.sql('SELECT name FROM identity.plans WHERE name = $1', ['x'])).toEqual([]);
    expect(await t.sql("SELECT username FROM identity.users WHERE username = 'x.admin'")).toEqual([]);
  });

  it('creates a tenant on a plan with its first administrator, who signs in to that tenant only', async () => {
    await t.client.upsertPlan(
      { name: 'starter', features: ['sandbox'], limits: { apiPerMinute: 20, dataRecordsPerMinute: 100, reportsPerHour: 2, concurrentRequests: 5 } },
      system(),
    );
    const created = await t.client.createTenant(
      { name: 'Harbour Authority', plan: 'starter', adminUsername: 'harbour.admin', adminPassword: 'harbour admin password' },
      system(),
    );
    expect(created.tenant).toMatchObject({
      name: 'Harbour Authority',
      plan: { name: 'starter', features: ['sandbox'], limits: { apiPerMinute: 20, dataRecordsPerMinute: 100, reportsPerHour: 2, concurrentRequests: 5 } },
    });
    expect(created.tenant!.id).toMatch(/^ten_[0-9a-z]{20}$/);
    expect(created.admin).toMatchObject({ username: 'harbour.admin', tenantId: created.tenant!.id, name: 'Administrator' });
    expect(created.admin!.permissions).toContain('system:admin');
    const tokens = await t.client.login({ username: 'harbour.admin', password: 'harbour admin password', environment: 'live', clientAddress: '' }, anon());
    expect(tokens.accessToken).toBeTruthy();
    expect(await t.client.getTenant({ id: created.tenant!.id }, system())).toEqual(created.tenant);
  });

  it('changes plans and validates plan, features and limits', async () => {
    const admin = await t.adminContext();
    expect(await rejection(t.client.setTenantPlan({ tenantId: admin.tenantId, plan: 'gold' }, system()))).toMatchObject({ code: '422104', field: 'plan' });
    expect(await rejection(t.client.setTenantPlan({ tenantId: 'ten_aaaaaaaaaaaaaaaaaaaa', plan: 'standard' }, system()))).toMatchObject({
      code: '422104',
      field: 'tenant_id',
    });
    expect(await rejection(t.client.upsertPlan({ name: 'Bad Name', features: [], limits: undefined }, system()))).toMatchObject({
      code: '422103',
      field: 'name',
    });
    expect(await rejection(t.client.upsertPlan({ name: 'ok', features: ['teleport'], limits: undefined }, system()))).toMatchObject({
      code: '422103',
      field: 'features[0]',
    });
    expect(
      await rejection(
        t.client.upsertPlan(
          { name: 'ok', features: [], limits: { apiPerMinute: -1, dataRecordsPerMinute: 0, reportsPerHour: 0, concurrentRequests: 0 } },
          system(),
        ),
      ),
    ).toMatchObject({ code: '400003', field: 'limits.apiPerMinute' });
    await t.client.upsertPlan(
      {
        name: 'pro',
        features: ['sandbox', 'oauth', 'reports'],
        limits: { apiPerMinute: 1000, dataRecordsPerMinute: 0, reportsPerHour: 0, concurrentRequests: 0 },
      },
      system(),
    );
    const moved = await t.client.setTenantPlan({ tenantId: admin.tenantId, plan: 'pro' }, system());
    expect(moved.plan).toMatchObject({ name: 'pro', limits: { apiPerMinute: 1000 } });
    // the plan comes with every principal from now on
    const key = await t.client.createApiKey({ name: 'plan check', permissions: ['project:read'] }, admin);
    expect((await t.client.authenticateApiKey({ key: key.key, environment: 'live' }, anon())).plan).toMatchObject({ name: 'pro' });
    await t.client.setTenantPlan({ tenantId: admin.tenantId, plan: 'standard' }, system());
  });

  it('keeps a plan’s raw retention and tells it, per tenant, to the monitoring-data service only', async () => {
    const admin = await t.adminContext();
    expect(await rejection(t.client.upsertPlan({ name: 'short', features: [], limits: undefined, rawRetentionMonths: 0 }, system()))).toMatchObject({
      code: '400003',
      field: 'raw_retention_months',
    });
    expect(await rejection(t.client.upsertPlan({ name: 'short', features: [], limits: undefined, rawRetentionMonths: 1201 }, system()))).toMatchObject({
      code: '400003',
      field: 'raw_retention_months',
    });
    const saved = await t.client.upsertPlan({ name: 'short', features: ['sandbox'], limits: undefined, rawRetentionMonths: 3 }, system());
    expect(saved).toMatchObject({ name: 'short', rawRetentionMonths: 3 });
    const moved = await t.client.setTenantPlan({ tenantId: admin.tenantId, plan: 'short' }, system());
    expect(moved.plan).toMatchObject({ name: 'short', rawRetentionMonths: 3 });

    const asMonitoringData = createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, `127.0.0.1:${t.service.port}`, {
      auth: t.keys.authFor('monitoring-data'),
      audience: 'identity',
    });
    try {
      const ctx = { ...system(), principalId: 'monitoring-data' };
      expect((await asMonitoringData.listRawRetention({}, ctx)).tenants).toEqual([{ tenantId: admin.tenantId, rawRetentionMonths: 3 }]);
      // monitoring-data calls nothing else, and the gateway cannot read retention (UNAUTHENTICATED: 502001)
      expect(await rejection(asMonitoringData.getTenant({ id: admin.tenantId }, ctx))).toMatchObject({ code: '502001' });
      expect(await rejection(t.client.listRawRetention({}, admin))).toMatchObject({ code: '502001' });
      // saved again without it: kept forever, and the tenant leaves the list
      const forever = await t.client.upsertPlan({ name: 'short', features: ['sandbox'], limits: undefined }, system());
      expect(forever.rawRetentionMonths).toBeUndefined();
      expect((await asMonitoringData.listRawRetention({}, ctx)).tenants).toEqual([]);
    } finally {
      asMonitoringData.close();
      await t.client.setTenantPlan({ tenantId: admin.tenantId, plan: 'standard' }, system());
    }
  });
});
