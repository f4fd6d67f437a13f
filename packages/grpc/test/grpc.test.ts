import { identity, projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { bindService, createClient, generatePlatformKeys, startGrpcServer, type CallerContext, type GrpcServerHandle } from '@mp/grpc';
import { createLogger, randomToken } from '@mp/kit';
import { TEST_PG_ADMIN_URL, queryTestDatabase } from '@mp/testing';
import pg from 'pg';

const logger = createLogger('test', 'silent');

// A login PostgreSQL admits no connection for (CONNECTION LIMIT 0): connecting as it meets the
// server's own 53300 "too many connections", as a service does when the server is full.
const fullRole = `mp_full_${randomToken(8).toLowerCase()}`;
await queryTestDatabase(TEST_PG_ADMIN_URL, `CREATE ROLE ${fullRole} LOGIN CONNECTION LIMIT 0`);
afterAll(() => queryTestDatabase(TEST_PG_ADMIN_URL, `DROP ROLE IF EXISTS ${fullRole}`));
async function queryAsFullRole(): Promise<void> {
  const url = new URL(TEST_PG_ADMIN_URL);
  url.username = fullRole;
  const c = new pg.Client({ connectionString: url.toString() });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query('SELECT 1');
  } finally {
    await c.end().catch(() => undefined);
  }
}
const keys = await generatePlatformKeys({ mtls: false });
const asGateway = (audience: string, deadlineMs?: number, inProcess = true) => ({
  auth: keys.authFor('gateway'),
  audience,
  inProcess,
  ...(deadlineMs ? { deadlineMs } : {}),
});
const GATEWAY_ONLY = { gateway: '*' } as const;
const ctx: CallerContext = {
  requestId: 'req_aaaaaaaaaaaaaaaaaaaa',
  tenantId: 'ten_bbbbbbbbbbbbbbbbbbbb',
  environment: 'sandbox',
  principalId: 'key_cccccccccccccccccccc',
  principalType: 'api_key',
  permissions: ['project:read', 'project:write'],
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};

// The same client and server over the network (HTTP/2 on loopback) and in-process (ADR 0125): every
// outcome must be the same either way.
describe.each([
  { way: 'over the network', inProcess: false },
  { way: 'in-process', inProcess: true },
])('gRPC helpers, $way', ({ inProcess }) => {
  let server: GrpcServerHandle;
  let seen: CallerContext | null = null;
  let client: ReturnType<typeof createClient<projects.ProjectsServer>>;

  beforeAll(async () => {
    server = await startGrpcServer({
      port: 0,
      logger,
      auth: keys.authFor('projects'),
      services: [
        bindService<Pick<projects.ProjectsServer, 'createProject' | 'getProject' | 'listProjects'>>(
          'mp.projects.Projects',
          projects.ProjectsService,
          {
            async createProject(req, c) {
              seen = c;
              if (req.name === 'dup')
                throw new DomainError('409001', {
                  field: 'number',
                  detail: 'Number "X" exists – ünïcode',
                  suggestion: 'Pick another',
                  headers: { 'Retry-After': '5' },
                });
              if (req.name === 'crash') throw new Error('unexpected');
              if (req.name === 'full') await queryAsFullRole();
              return { id: 'prj_1', number: req.number, name: req.name, status: 'not_started', createdAt: 'a', updatedAt: 'b', version: 1, timeZone: 'UTC' };
            },
            async getProject() {
              throw new DomainError('404001', { field: 'project_id' });
            },
            async listProjects() {
              return { items: [], page: undefined };
            },
          },
          GATEWAY_ONLY,
        ),
      ],
    });
    client = createClient<projects.ProjectsServer>(
      projects.ProjectsClient,
      projects.ProjectsService,
      `127.0.0.1:${server.port}`,
      asGateway('projects', undefined, inProcess),
    );
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('carries the caller context, authenticated, with the verified caller', async () => {
    const res = await client.createProject({ name: 'Dam', number: 'D-1' }, ctx);
    expect(res).toMatchObject({ id: 'prj_1', name: 'Dam', number: 'D-1' });
    expect(seen).toEqual({ ...ctx, caller: 'gateway' });
  });

  it('turns a domain error into a gRPC status and back, keeping code, field, detail, suggestion and headers', async () => {
    const err = await client.createProject({ name: 'dup', number: 'X' }, ctx).catch((e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({
      code: '409001',
      field: 'number',
      detail: 'Number "X" exists – ünïcode',
      suggestion: 'Pick another',
      headers: { 'Retry-After': '5' },
    });
    const nf = await client.getProject({ id: 'x' }, ctx).catch((e) => e);
    expect(nf).toMatchObject({ code: '404001', field: 'project_id' });
  });

  it('hides an unexpected failure behind 500001 quoting the request id', async () => {
    const err = await client.createProject({ name: 'crash', number: 'X' }, ctx).catch((e) => e);
    expect(err.code).toBe('500001');
    expect(err.detail).toContain(ctx.requestId);
    expect(err.detail).not.toContain('unexpected');
  });

  it('answers a database without room (53300 from a real PostgreSQL) with 503002 and Retry-After, not 500001', async () => {
    const err = await client.createProject({ name: 'full', number: 'X' }, ctx).catch((e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('503002');
    expect(err.headers).toEqual({ 'Retry-After': '1' });
    expect(err.detail).toContain('nothing was changed');
  });

  it('maps an unreachable service to 503002', async () => {
    const dead = createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, '127.0.0.1:1', asGateway('identity', 2000));
    const err = await dead.getJwks({}, ctx).catch((e) => e);
    dead.close();
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('503002');
  });

  it('went the way it was meant to: in-process calls never touch a socket, network calls never skip it', () => {
    // The five calls above that reached the server: create ×4 and get (the dead client's reached none).
    expect(server.inProcessCalls).toBe(inProcess ? 5 : 0);
  });
});

describe('gRPC client over several replicas', () => {
  it('spreads calls round robin over a list of addresses, and keeps calling the rest when one stops', async () => {
    const calls = [0, 0];
    const replica = (i: number) =>
      startGrpcServer({
        port: 0,
        logger,
        auth: keys.authFor('projects'),
        services: [
          bindService<Pick<projects.ProjectsServer, 'createProject' | 'getProject' | 'listProjects'>>(
            'mp.projects.Projects',
            projects.ProjectsService,
            {
              async createProject() {
                throw new Error('not used');
              },
              async getProject(req) {
                calls[i]!++;
                return {
                  id: req.id,
                  number: `N-${i}`,
                  name: `replica ${i}`,
                  status: 'not_started',
                  createdAt: 'a',
                  updatedAt: 'b',
                  version: 1,
                  timeZone: 'UTC',
                };
              },
              async listProjects() {
                return { items: [], page: undefined };
              },
            },
            GATEWAY_ONLY,
          ),
        ],
      });
    const servers = await Promise.all([replica(0), replica(1)]);
    const client = createClient<projects.ProjectsServer>(
      projects.ProjectsClient,
      projects.ProjectsService,
      servers.map((s) => `127.0.0.1:${s.port}`).join(','),
      asGateway('projects'),
    );
    try {
      for (let i = 0; i < 20; i++) await client.getProject({ id: 'prj_1' }, ctx);
      expect(calls[0]).toBeGreaterThanOrEqual(8);
      expect(calls[1]).toBeGreaterThanOrEqual(8);
      expect(calls[0]! + calls[1]!).toBe(20);
      const viaDns = createClient<projects.ProjectsServer>(
        projects.ProjectsClient,
        projects.ProjectsService,
        `dns:///localhost:${servers[1]!.port}`,
        asGateway('projects'),
      );
      expect((await viaDns.getProject({ id: 'prj_1' }, ctx)).name).toBe('replica 1');
      viaDns.close();
      await servers[0]!.stop();
      const before = calls[1]!;
      for (let i = 0; i < 5; i++) expect((await client.getProject({ id: 'prj_1' }, ctx)).name).toBe('replica 1');
      expect(calls[1]).toBe(before + 5);
    } finally {
      client.close();
      await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    }
  });
});
