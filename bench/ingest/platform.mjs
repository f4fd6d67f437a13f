// The platform under test, in a process of its own so its memory and CPU are measured apart from
// the load generator. Started by run.mjs with the environment it needs; prints one JSON line
// when ready and stops on SIGTERM.
// With OTEL_* set (bench/tracing), tracing starts before the platform's modules load, as in
// scripts/start.mjs.
import { join } from 'node:path';
import { startTracing } from '@mp/telemetry';

const tracing = await startTracing('bench-platform');
const { generatePlatformKeys } = await import('@mp/grpc');
const { startPlatform } = await import('@mp/launcher');
const { createLogger } = await import('@mp/kit');

const tls = JSON.parse(process.env.BENCH_TLS);
// The services' keys as files too, for the gateway and monitoring-data processes of the split topology.
const keys = await generatePlatformKeys({ mtls: true });
keys.writeFiles(join(process.env.MP_DATA_DIR, 'keys'));
const platform = await startPlatform({ tls, keys, logger: createLogger('bench', 'warn') });
process.stdout.write(JSON.stringify({ port: platform.gateway.port, ports: platform.ports }) + '\n');
process.once('SIGTERM', async () => {
  await platform.stop();
  await tracing?.shutdown();
  process.exit(0);
});
