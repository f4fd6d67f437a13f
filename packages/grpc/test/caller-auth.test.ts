import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import {
  bindService,
  CALLER_METADATA_KEY,
  createClient,
  generatePlatformKeys,
  keyringFromPem,
  generateServiceKeyPair,
  signCallerContext,
  startGrpcServer,
  type CallerContext,
  type GrpcServerHandle,
  type PlatformKeys,
} from '@mp/grpc';
import { createLogger } from '@mp/kit';

const logger = createLogger('test', 'silent');
const ctx: CallerContext = {
  requestId: 'req_aaaaaaaaaaaaaaaaaaaa',
  tenantId: 'ten_bbbbbbbbbbbbbbbbbbbb',
  environment: 'live',
  principalId: 'usr_cccccccccccccccccccc',
  principalType: 'user',
  permissions: ['project:read'],
};
const GET_PROJECT = '/mp.projects.Projects/GetProject';

/** A projects server that records every call that reached a handler. */
async function startProjects(keys: PlatformKeys, calls: CallerContext[], tls = false) {
  const auth = tls ? keys.authFor('projects') : { keyring: keys.authFor('projects').keyring };
  return startGrpcServer({
    port: 0,
    logger,
    auth,
    services: [
      bindService<Pick<projects.ProjectsServer, 'createProject' | 'getProject' | 'listProjects'>>(
        'mp.projects.Projects',
        projects.ProjectsService,
        {
          async createProject(req, c) {
            calls.push(c);
            // An error whose detail echoes a huge input: the trailers must stay bounded.
            throw new DomainError('409001', { field: 'number', detail: `Number "${req.number}" exists.`, suggestion: 'x'.repeat(200_000) });
          },
          async getProject(req, c) {
            calls.push(c);
            return { id: req.id, number: 'N', name: 'n', status: 'not_started', createdAt: 'a', updatedAt: 'b', version: 1, timeZone: 'UTC' };
          },
          async listProjects(_req, c) {
            calls.push(c);
            return { items: [], page: undefined };
          },
        },
        { gateway: '*', 'monitoring-data': ['getProject'] },
      ),
    ],
  });
}

/** Calls GetProject with whatever metadata an attacker chooses, through a bare grpc-js client. */
function rawGetProject(port: number, md: Metadata, creds = credentials.createInsecure()): Promise<ServiceError | null> {
  const client = new projects.ProjectsClient(`127.0.0.1:${port}`, creds);
  return new Promise((resolve) =>
    client.getProject({ id: 'prj_1' }, md, { deadline: Date.now() + 5000 }, (err) => {
      client.close();
      resolve(err);
    }),
  );
}

const withToken = (token: string) => {
  const md = new Metadata();
  md.set(CALLER_METADATA_KEY, token);
  return md;
};

describe('services authenticate their callers', () => {
  let keys: PlatformKeys;
  let server: GrpcServerHandle;
  const calls: CallerContext[] = [];

  beforeAll(async () => {
    keys = await generatePlatformKeys({ mtls: false });
    server = await startProjects(keys, calls);
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(() => {
    calls.length = 0;
  });

  it('refuses a call with the old plain metadata (tenant and permissions as headers) as UNAUTHENTICATED', async () => {
    const md = new Metadata();
    md.set('x-mp-tenant-id', 'ten_bbbbbbbbbbbbbbbbbbbb');
    md.set('x-mp-principal-type', 'system');
    md.set('x-mp-permissions', 'system:admin');
    const err = await rawGetProject(server.port, md);
    expect(err?.code).toBe(status.UNAUTHENTICATED);
    expect(err?.details).toBe('Caller not authenticated: no caller context.');
    expect(calls).toHaveLength(0);
  });

  it('refuses a context made with a key that is not the gateway’s, even when it claims to be the gateway', async () => {
    const impostor = keyringFromPem('gateway', generateServiceKeyPair().privateKey, { projects: keys.pairs.projects.publicKey });
    const err = await rawGetProject(server.port, withToken(signCallerContext(impostor, 'projects', GET_PROJECT, ctx)));
    expect(err?.code).toBe(status.UNAUTHENTICATED);
    expect(err?.details).toContain('signature invalid');
    expect(calls).toHaveLength(0);
  });

  it('refuses a tampered context: another tenant or more permissions in a genuine token', async () => {
    const genuine = signCallerContext(keys.authFor('gateway').keyring, 'projects', GET_PROJECT, ctx);
    const [body, mac] = genuine.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    for (const change of [{ ten: 'ten_zzzzzzzzzzzzzzzzzzzz' }, { prm: ['system:admin'] }, { pty: 'system' }]) {
      const forged = Buffer.from(JSON.stringify({ ...payload, ...change })).toString('base64url');
      const err = await rawGetProject(server.port, withToken(`${forged}.${mac}`));
      expect(err?.code).toBe(status.UNAUTHENTICATED);
      expect(err?.details).toContain('signature invalid');
    }
    expect(calls).toHaveLength(0);
  });

  it('refuses an expired context, one for another service, and one for another method', async () => {
    const gateway = keys.authFor('gateway').keyring;
    const cases: [string, string][] = [
      [signCallerContext(gateway, 'projects', GET_PROJECT, ctx, Date.now() - 31_000), 'expired'],
      [signCallerContext(gateway, 'identity', GET_PROJECT, ctx), 'for another service'],
      [signCallerContext(gateway, 'projects', '/mp.projects.Projects/ListProjects', ctx), 'for another method'],
      [signCallerContext(gateway, 'projects', GET_PROJECT, ctx, Date.now() + 60_000), 'lifetime invalid'],
      ['not-a-token', 'malformed'],
      ['x'.repeat(9000), 'too large'],
    ];
    for (const [token, reason] of cases) {
      const err = await rawGetProject(server.port, withToken(token));
      expect({ code: err?.code, reason: err?.details.includes(reason) }).toEqual({ code: status.UNAUTHENTICATED, reason: true });
    }
    expect(calls).toHaveLength(0);
  });

  it('admits a caller only to the methods its policy names', async () => {
    const md = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${server.port}`, {
      auth: keys.authFor('monitoring-data'),
      audience: 'projects',
    });
    const webhooks = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${server.port}`, {
      auth: keys.authFor('webhooks'),
      audience: 'projects',
    });
    try {
      expect((await md.getProject({ id: 'prj_1' }, ctx)).id).toBe('prj_1');
      expect(calls.map((c) => c.caller)).toEqual(['monitoring-data']);
      // Not in its policy: refused before the handler; the gateway's client maps it to 502001.
      await expect(md.listProjects({ page: undefined }, ctx)).rejects.toMatchObject({ code: '502001' });
      await expect(webhooks.getProject({ id: 'prj_1' }, ctx)).rejects.toMatchObject({ code: '502001' });
      expect(calls).toHaveLength(1);
    } finally {
      md.close();
      webhooks.close();
    }
  });

  it('keeps the connection usable after an error whose detail echoes a 1 MB input (trailers are capped)', async () => {
    const client = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${server.port}`, {
      auth: keys.authFor('gateway'),
      audience: 'projects',
      deadlineMs: 5000,
      // The trailers' bound is about HTTP/2: over the network, as between pods.
      inProcess: false,
    });
    try {
      const started = Date.now();
      const err = (await client.createProject({ name: 'n', number: 'é'.repeat(1_000_000) }, ctx).catch((e) => e)) as DomainError;
      expect(err).toBeInstanceOf(DomainError);
      expect(err.code).toBe('409001');
      expect(err.detail.startsWith('Number "éé')).toBe(true);
      expect(err.detail.endsWith('…')).toBe(true);
      expect(Buffer.byteLength(encodeURIComponent(err.detail))).toBeLessThanOrEqual(2000);
      expect(err.suggestion.length).toBeLessThan(1000);
      // The same channel answers the next call at once (before the fix: 35-45 s, then a failure).
      expect((await client.getProject({ id: 'prj_2' }, ctx)).id).toBe('prj_2');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      client.close();
    }
  });
});

describe('mutual TLS between processes', () => {
  let keys: PlatformKeys;
  let server: GrpcServerHandle;
  const calls: CallerContext[] = [];

  beforeAll(async () => {
    keys = await generatePlatformKeys({ mtls: true });
    server = await startProjects(keys, calls, true);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves a caller with a certificate of the platform CA', async () => {
    const client = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${server.port}`, {
      auth: keys.authFor('gateway'),
      audience: 'projects',
      inProcess: false,
    });
    try {
      expect((await client.getProject({ id: 'prj_1' }, ctx)).id).toBe('prj_1');
      expect(calls).toHaveLength(1);
    } finally {
      client.close();
    }
  });

  it('refuses plaintext, a client without a certificate, and a certificate of another CA, before any request', async () => {
    const token = signCallerContext(keys.authFor('gateway').keyring, 'projects', GET_PROJECT, ctx);
    const other = await generatePlatformKeys({ mtls: true });
    const ca = Buffer.from(keys.tls!.ca);
    const attempts = [
      credentials.createInsecure(),
      credentials.createSsl(ca),
      credentials.createSsl(ca, Buffer.from(other.tls!.certs.gateway.key), Buffer.from(other.tls!.certs.gateway.cert)),
    ];
    for (const creds of attempts) {
      const err = await rawGetProject(server.port, withToken(token), creds);
      expect(err?.code).toBe(status.UNAVAILABLE);
    }
    expect(calls).toHaveLength(1);
  });
});
