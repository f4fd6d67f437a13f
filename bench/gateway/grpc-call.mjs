// CPU cost of one gRPC call through @mp/grpc (createClient → startGrpcServer), client and server in
// one process as in the embedded platform, with mutual TLS and the signed caller context: what the
// gateway pays per service call before any use case runs. The handler answers ListProjects with
// one project at once. Prints CPU µs per call (user + system of this process) and calls per second,
// over the network (HTTP/2 on loopback) and in-process (ADR 0125: what the embedded platform does
// when client and server share a process), one after the other in the same run.
//   node bench/gateway/grpc-call.mjs [--calls 20000] [--concurrency 32] [--insecure]   (BENCH_SMOKE=1: 200 calls unless --calls is given)
import { projects } from '@mp/contracts';
import { bindService, createClient, generatePlatformKeys, startGrpcServer } from '@mp/grpc';
import { createLogger } from '@mp/kit';
import { smokeOr } from '../support/smoke.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const calls = arg('--calls', smokeOr(20_000, 200));
const concurrency = arg('--concurrency', 32);
const keys = await generatePlatformKeys({ mtls: !process.argv.includes('--insecure') });
const project = {
  id: 'prj_0123456789abcdefghij',
  name: 'Benchmark tunnel',
  number: 'BENCH-1',
  status: 'in_progress',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 1,
};
const handlers = { listProjects: async () => ({ items: [project], page: { hasMore: false } }) };
const server = await startGrpcServer({
  port: 0,
  services: [bindService('mp.projects.Projects', projects.ProjectsService, handlers, { gateway: '*' })],
  auth: keys.authFor('projects'),
  logger: createLogger('bench', 'warn'),
});
const clientOf = (inProcess) =>
  createClient(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${server.port}`, {
    auth: keys.authFor('gateway'),
    audience: 'projects',
    inProcess,
  });
const ctx = {
  requestId: 'req_0123456789abcdefghij',
  tenantId: 'ten_0123456789abcdefghij',
  environment: 'live',
  principalId: 'key_0123456789abcdefghij',
  principalType: 'api_key',
  permissions: ['project:read', 'project:write', 'data:read', 'data:write'],
};
const run = async (client, n) => {
  let left = n;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await client.listProjects({ page: { limit: 1 } }, ctx);
    }),
  );
};
for (const inProcess of [false, true]) {
  const client = clientOf(inProcess);
  const before = server.inProcessCalls;
  await run(client, Math.min(5000, calls)); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run(client, calls);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const way = inProcess ? 'in-process' : 'network';
  if (server.inProcessCalls > before !== inProcess) throw new Error(`the ${way} client did not go the way it was meant to`);
  console.log(
    `${way}: ${calls.toLocaleString('en-US')} calls, ${concurrency} in flight, ${keys.tls ? 'mTLS' : 'insecure'}: ${((cpu.user + cpu.system) / calls).toFixed(1)} CPU µs/call (user ${(cpu.user / calls).toFixed(1)}, system ${(cpu.system / calls).toFixed(1)}), ${Math.round(calls / seconds).toLocaleString('en-US')} calls/s`,
  );
  client.close();
}
await server.stop();
