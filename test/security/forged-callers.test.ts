import { credentials, Metadata, status, type ChannelCredentials, type Client, type ServiceError } from '@grpc/grpc-js';
import { identity, monitoringData, projects, reports, webhooks } from '@mp/contracts';
import { CALLER_METADATA_KEY, keyringFromPem, PARTIES, signCallerContext, type CallerContext, type Party } from '@mp/grpc';
import { runOperatorCommand } from '@mp/operator';
import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// ADR 0016: every service trusted tenant, principal and permissions from plain gRPC
// metadata. Here a process that reaches the service ports tries what an attacker in the cluster
// would: no certificate, the old plain metadata, a context it signs itself while claiming to be the
// gateway, its own genuine credential on methods it may not call, and the gateway's credential on
// operator calls. Every attempt is refused before a use case runs and changes nothing.

type Ctor = new (address: string, creds: ChannelCredentials) => Client;
const SERVICES: { party: Party; port: (t: TestPlatform) => number; Ctor: Ctor; method: string; path: string; request: object }[] = [
  {
    party: 'identity',
    port: (t) => t.platform.ports.identity,
    Ctor: identity.IdentityClient as unknown as Ctor,
    method: 'listUsers',
    path: identity.IdentityService.listUsers.path,
    request: {},
  },
  {
    party: 'projects',
    port: (t) => t.platform.ports.projects,
    Ctor: projects.ProjectsClient as unknown as Ctor,
    method: 'listProjects',
    path: projects.ProjectsService.listProjects.path,
    request: {},
  },
  {
    party: 'monitoring-data',
    port: (t) => t.platform.ports.monitoringData,
    Ctor: monitoringData.MonitoringDataClient as unknown as Ctor,
    method: 'getRecord',
    path: monitoringData.MonitoringDataService.getRecord.path,
    request: { id: 'dat_00000000000000000000' },
  },
  {
    party: 'reports',
    port: (t) => t.platform.ports.reports,
    Ctor: reports.ReportsClient as unknown as Ctor,
    method: 'listReports',
    path: reports.ReportsService.listReports.path,
    request: {},
  },
  {
    party: 'webhooks',
    port: (t) => t.platform.ports.webhooks,
    Ctor: webhooks.WebhooksClient as unknown as Ctor,
    method: 'listWebhooks',
    path: webhooks.WebhooksService.listWebhooks.path,
    request: {},
  },
];

describe('forged callers on gRPC are refused by every service', () => {
  let t: TestPlatform;
  let victim: CallerContext;

  beforeAll(async () => {
    t = await startTestPlatform();
    const key = await t.apiKey(['project:read', 'project:write', 'system:admin']);
    const created = await t.api('POST', '/projects', { headers: { 'x-api-key': key }, body: { name: 'Victim dam', number: 'VD-1' } });
    expect(created.status).toBe(200);
    const [row] = await queryTestDatabase<{ tenant_id: string }>(t.db.url, 'SELECT tenant_id FROM projects.projects WHERE id = $1', [created.body.data.id]);
    victim = {
      requestId: 'req_attackattackattack0',
      tenantId: row!.tenant_id,
      environment: 'live',
      principalId: 'usr_attacker',
      principalType: 'system',
      permissions: ['system:admin', 'project:read'],
    };
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  /** One raw call with chosen channel credentials and metadata; resolves with the gRPC error. */
  const raw = (svc: (typeof SERVICES)[number], creds: ChannelCredentials, md: Metadata, method = svc.method, request: object = svc.request) =>
    new Promise<ServiceError | null>((resolve) => {
      const client = new svc.Ctor(`127.0.0.1:${svc.port(t)}`, creds) as unknown as Record<string, (...a: unknown[]) => void> & Client;
      client[method]!(request, md, { deadline: Date.now() + 10_000 }, (err: ServiceError | null) => {
        client.close();
        resolve(err);
      });
    });
  /** A pod of the cluster that holds a certificate of the platform's CA (here: the webhooks pod's). */
  const podCreds = () => {
    const tls = t.platform.keys.tls!;
    return credentials.createSsl(Buffer.from(tls.ca), Buffer.from(tls.certs.webhooks.key), Buffer.from(tls.certs.webhooks.cert));
  };
  const token = (md: Metadata, value: string) => {
    md.set(CALLER_METADATA_KEY, value);
    return md;
  };
  const tenants = async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM identity.tenants'))[0]!.n;

  it.each(SERVICES.map((s) => [s.party, s] as const))(
    '%s: refuses a peer without a client certificate, the old plain metadata, and a self-signed "gateway" context',
    async (_name, svc) => {
      // No certificate of the platform's CA: the TLS handshake fails, no request is read.
      expect((await raw(svc, credentials.createInsecure(), new Metadata()))?.code).toBe(status.UNAVAILABLE);
      expect((await raw(svc, credentials.createSsl(Buffer.from(t.platform.keys.tls!.ca)), new Metadata()))?.code).toBe(status.UNAVAILABLE);

      // The old way in: tenant, principal and permissions as plain metadata.
      const plain = new Metadata();
      for (const [k, v] of Object.entries({
        'x-mp-tenant-id': victim.tenantId,
        'x-mp-principal-type': 'system',
        'x-mp-principal-id': 'op',
        'x-mp-permissions': 'system:admin project:read',
      }))
        plain.set(k, v);
      const refused = await raw(svc, podCreds(), plain);
      expect({ code: refused?.code, details: refused?.details }).toEqual({
        code: status.UNAUTHENTICATED,
        details: 'Caller not authenticated: no caller context.',
      });

      // A context the pod signs with its own key while it claims to be the gateway.
      const publicKeys = Object.fromEntries(PARTIES.map((p) => [p, t.platform.keys.pairs[p].publicKey]));
      const impostor = keyringFromPem('gateway', t.platform.keys.pairs.webhooks.privateKey, publicKeys);
      const forged = await raw(svc, podCreds(), token(new Metadata(), signCallerContext(impostor, svc.party, svc.path, victim)));
      expect(forged?.code).toBe(status.UNAUTHENTICATED);
      expect(forged?.details).toContain('signature invalid');
    },
  );

  it.each(SERVICES.map((s) => [s.party, s] as const))('%s: refuses a genuine credential of a party its policy does not admit', async (_name, svc) => {
    // The webhooks pod calls nobody; for the webhooks service itself, monitoring-data tries.
    const party: Party = svc.party === 'webhooks' ? 'monitoring-data' : 'webhooks';
    const own = t.platform.keys.authFor(party).keyring;
    const err = await raw(svc, podCreds(), token(new Metadata(), signCallerContext(own, svc.party, svc.path, victim)));
    expect(err?.code).toBe(status.UNAUTHENTICATED);
    expect(err?.details).toBe(`Caller not authenticated: ${party} may not call ${svc.method}.`);
  });

  it('admits the reports credential to the reads a report is made from, and to nothing else', async () => {
    const own = t.platform.keys.authFor('reports').keyring;
    const projectsSvc = SERVICES.find((s) => s.party === 'projects')!;
    const dataSvc = SERVICES.find((s) => s.party === 'monitoring-data')!;
    const refusals = [
      [projectsSvc, 'deleteProject', projects.ProjectsService.deleteProject.path, { id: 'prj_00000000000000000000' }],
      [projectsSvc, 'listProjects', projects.ProjectsService.listProjects.path, {}],
      [dataSvc, 'writeRecords', monitoringData.MonitoringDataService.writeRecords.path, { projectId: 'prj_00000000000000000000' }],
      [dataSvc, 'getRecord', monitoringData.MonitoringDataService.getRecord.path, { id: 'dat_00000000000000000000' }],
    ] as const;
    for (const [svc, method, path, request] of refusals) {
      const err = await raw(svc, podCreds(), token(new Metadata(), signCallerContext(own, svc.party, path, victim)), method, request);
      expect({ code: err?.code, details: err?.details }).toEqual({
        code: status.UNAUTHENTICATED,
        details: `Caller not authenticated: reports may not call ${method}.`,
      });
    }
    // Its reads pass the caller check and reach the use case (which then checks the person's access).
    const read = await raw(
      dataSvc,
      podCreds(),
      token(new Metadata(), signCallerContext(own, 'monitoring-data', monitoringData.MonitoringDataService.getSeries.path, victim)),
      'getSeries',
      { pointId: 'pt_00000000000000000000' },
    );
    expect(read?.code).not.toBe(status.UNAUTHENTICATED);
  });

  it('keeps operator calls for the operator credential: the gateway’s credential cannot create a tenant and sign in as it', async () => {
    const before = await tenants();
    const gateway = t.platform.keys.authFor('gateway').keyring;
    const request = { name: 'Evil', adminUsername: 'evil-admin', adminPassword: 'evil password 123' };
    const svc = SERVICES[0]!;
    const err = await raw(
      svc,
      podCreds(),
      token(new Metadata(), signCallerContext(gateway, 'identity', identity.IdentityService.createTenant.path, victim)),
      'createTenant',
      request,
    );
    expect(err?.code).toBe(status.UNAUTHENTICATED);
    expect(err?.details).toBe('Caller not authenticated: gateway may not call createTenant.');
    expect(await tenants()).toBe(before);
    expectError(
      await t.api('POST', '/auth/login', { body: { username: 'evil-admin', password: 'evil password 123', grant_type: 'password' } }),
      401008,
      'password',
    );
  });

  it('lets the operator command create a tenant with the credential the platform wrote, whose administrator then signs in', async () => {
    const before = await tenants();
    const out = await runOperatorCommand(
      [
        'create-tenant',
        '--name',
        'Harbour Authority',
        '--admin-username',
        'harbour-admin',
        '--admin-password',
        'harbour password 1',
        '--credential',
        t.platform.operatorFile,
      ],
      {},
    );
    const created = JSON.parse(out);
    expect(created.tenant).toMatchObject({ name: 'Harbour Authority', plan: { name: 'standard' } });
    expect(created.tenant.id).toMatch(/^ten_/);
    expect(await tenants()).toBe(before + 1);
    const login = await t.api('POST', '/auth/login', { body: { username: 'harbour-admin', password: 'harbour password 1', grant_type: 'password' } });
    expect(login.status).toBe(200);
    const me = await t.api('GET', '/me', { headers: { authorization: `Bearer ${login.body.data.access_token}` } });
    expect(me.body.data.tenant_id ?? me.body.data.tenant?.id).toBe(created.tenant.id);
  });
});
