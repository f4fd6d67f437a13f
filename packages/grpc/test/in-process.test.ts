import { AsyncLocalStorage } from 'node:async_hooks';
import { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { bindService, createClient, generatePlatformKeys, startGrpcServer, type CallerContext, type GrpcServerHandle, type PlatformKeys } from '@mp/grpc';
import { createLogger } from '@mp/kit';

// Calls between two parties of one process skip the network (ADR 0125). What must hold: they only
// do when mutual TLS would have admitted them, the handler runs outside the caller's async context
// (as a network call's would: the embedded database's transaction tracking depends on it), a
// deadline still ends a call nobody answers, and a stopping server waits for the calls in flight.

const logger = createLogger('test', 'silent');
const ctx: CallerContext = {
  requestId: 'req_aaaaaaaaaaaaaaaaaaaa',
  tenantId: 'ten_bbbbbbbbbbbbbbbbbbbb',
  environment: 'live',
  principalId: 'key_cccccccccccccccccccc',
  principalType: 'api_key',
  permissions: ['project:read'],
};
const store = new AsyncLocalStorage<string>();

let keys: PlatformKeys;
let server: GrpcServerHandle;
/** What the handlers saw: the caller, and the async-context store at the time. */
const seen: { caller?: string; store: string | undefined }[] = [];
/** GetProject of `prj_hang` waits for this; resolve it to answer. */
let release: () => void = () => undefined;

const project = (id: string) => ({ id, number: 'N', name: 'n', status: 'not_started', createdAt: 'a', updatedAt: 'b', version: 1, timeZone: 'UTC' });

beforeAll(async () => {
  keys = await generatePlatformKeys({ mtls: true });
  server = await startGrpcServer({
    port: 0,
    logger,
    auth: keys.authFor('projects'),
    services: [
      bindService<Pick<projects.ProjectsServer, 'getProject' | 'listProjects'>>(
        'mp.projects.Projects',
        projects.ProjectsService,
        {
          async getProject(req, c) {
            seen.push({ caller: c.caller, store: store.getStore() });
            if (req.id === 'prj_hang') await new Promise<void>((r) => (release = r));
            return project(req.id);
          },
          async listProjects() {
            return { items: [project('prj_1')], page: { hasMore: false } };
          },
        },
        { gateway: '*' },
      ),
    ],
  });
});
afterAll(async () => {
  await server?.stop(100);
});
beforeEach(() => {
  seen.length = 0;
});

const clientOf = (auth = keys.authFor('gateway'), opts: { deadlineMs?: number; address?: string } = {}) =>
  createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, opts.address ?? `127.0.0.1:${server.port}`, {
    auth,
    audience: 'projects',
    ...(opts.deadlineMs ? { deadlineMs: opts.deadlineMs } : {}),
  });

describe('gRPC calls within one process', () => {
  it('answers without the network, the request and answer decoded as on the wire, the handler outside the caller’s async context', async () => {
    const client = clientOf();
    const before = server.inProcessCalls;
    try {
      const answer = await store.run('caller transaction', () => client.getProject({ id: 'prj_1' }, ctx));
      expect(answer).toEqual(project('prj_1'));
      // localhost names the same server.
      const byName = clientOf(undefined, { address: `localhost:${server.port}` });
      expect((await byName.listProjects({ page: { limit: 1, cursor: '' } }, ctx)).items.map((p) => p.id)).toEqual(['prj_1']);
      byName.close();
      expect(server.inProcessCalls - before).toBe(2);
      expect(seen).toEqual([{ caller: 'gateway', store: undefined }]);
    } finally {
      client.close();
    }
  });

  it('goes over the network, and meets the TLS handshake there, when mutual TLS would not admit the client', async () => {
    const other = await generatePlatformKeys({ mtls: true });
    const insecure = { keyring: keys.authFor('gateway').keyring };
    const before = server.inProcessCalls;
    // Another CA, and no certificate at all: refused before any request, as between pods.
    for (const auth of [other.authFor('gateway'), insecure]) {
      const client = clientOf(auth, { deadlineMs: 3000 });
      await expect(client.getProject({ id: 'prj_1' }, ctx)).rejects.toMatchObject({ code: '503002' });
      client.close();
    }
    // The wrong audience: the server is not that party, so its certificate would not match.
    const misdirected = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${server.port}`, {
      auth: keys.authFor('gateway'),
      audience: 'identity',
      deadlineMs: 3000,
    });
    await expect(misdirected.getProject({ id: 'prj_1' }, ctx)).rejects.toBeInstanceOf(DomainError);
    misdirected.close();
    expect(server.inProcessCalls).toBe(before);
    expect(seen).toEqual([]);
  });

  it('ends a call nobody answers at its deadline (503002), and a stopping server waits for the calls in flight', async () => {
    const client = clientOf(undefined, { deadlineMs: 200 });
    try {
      await expect(client.getProject({ id: 'prj_hang' }, ctx)).rejects.toMatchObject({ code: '503002' });
      release();
      const patient = clientOf();
      const inFlight = patient.getProject({ id: 'prj_hang' }, ctx);
      // The handler has been entered: the call is in flight when the stop begins.
      expect(seen.map((s) => s.caller)).toEqual(['gateway', 'gateway']);
      let stopped = false;
      const stopping = server.stop(10_000).then(() => (stopped = true));
      await Promise.resolve();
      expect(stopped).toBe(false);
      release();
      expect((await inFlight).id).toBe('prj_hang');
      await stopping;
      expect(stopped).toBe(true);
      // Stopped: the next call goes over the network and finds nobody there.
      const late = clientOf(undefined, { deadlineMs: 3000 });
      await expect(late.getProject({ id: 'prj_1' }, ctx)).rejects.toMatchObject({ code: '503002' });
      late.close();
      patient.close();
    } finally {
      client.close();
    }
  });
});
