// What the gateway's credential cache (ADR 0119) saves per read, in one run: the embedded platform
// (gateway and services in this process) on real PostgreSQL, NATS JetStream and Redis, started
// with the cache on, then with it off (MP_AUTH_CACHE_ENTRIES=0), each on a database of its own.
// Each sends the same `GET /v3/projects?limit=1` with an API key, one at a time, and prints the CPU
// of this process per read (platform and client together: the client's share is the same in both)
// and PostgreSQL's, the wall time per read, and the cache's hit and miss counters. On a shared
// machine, CPU per read moves far less with the other load than requests/s do.
//
// Options (environment): BENCH_READS=2000 (per setting)  BENCH_SMOKE=1: 50 reads
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePlatformKeys } from '@mp/grpc';
import { createLogger, createSelfSignedCertificate } from '@mp/kit';
import { startPlatform } from '@mp/launcher';
import { createTestDatabase, createTestStream } from '@mp/testing';
import { postgresStat } from '../process-stats.mjs';
import { setting } from '../support/smoke.mjs';

const READS = Number(setting('BENCH_READS', 2000, 50));
const tls = await createSelfSignedCertificate();

async function measure(cacheEntries) {
  const db = await createTestDatabase();
  const stream = createTestStream();
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-bench-auth-cache-'));
  const keys = await generatePlatformKeys({ mtls: true });
  keys.writeFiles(join(dataDir, 'keys'));
  const env = {
    ...process.env,
    MP_DATABASE_URL: db.url,
    MP_NATS_URL: stream.url,
    MP_NATS_STREAM: stream.stream,
    MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
    MP_REDIS_URL: process.env.MP_REDIS_URL ?? 'redis://127.0.0.1:6379',
    MP_REDIS_PREFIX: `mpb:${stream.stream}`,
    MP_HTTPS_PORT: '0',
    MP_SANDBOX_HTTPS_PORT: '0',
    MP_IDENTITY_GRPC_PORT: '0',
    MP_PROJECTS_GRPC_PORT: '0',
    MP_WEBHOOKS_GRPC_PORT: '0',
    MP_MONITORING_DATA_GRPC_PORT: '0',
    MP_REPORTS_GRPC_PORT: '0',
    MP_OPS_PORT: '0',
    MP_BIND_HOST: '127.0.0.1',
    MP_ADMIN_USERNAME: 'admin',
    MP_ADMIN_PASSWORD: 'bench password 0123',
    MP_DATA_DIR: dataDir,
    MP_LIMIT_API_PER_MINUTE: '1000000000',
    MP_LIMIT_AUTH_PER_MINUTE: '1000000',
    MP_LIMIT_CONCURRENT: '100000',
    MP_AUTH_CACHE_ENTRIES: String(cacheEntries),
  };
  const platform = await startPlatform({ tls, keys, env, logger: createLogger('bench', 'warn') });
  const agent = new https.Agent({ keepAlive: true, ca: tls.cert });
  try {
    const call = (method, path, body, headers = {}) =>
      new Promise((resolve, reject) => {
        const req = https.request(
          `https://127.0.0.1:${platform.gateway.port}/v3${path}`,
          { method, agent, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text).data) : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`))));
          },
        );
        req.on('error', reject);
        req.end(body ? JSON.stringify(body) : undefined);
      });
    const login = await call('POST', '/auth/login', { username: 'admin', password: 'bench password 0123', grant_type: 'password' });
    const key = (await call('POST', '/api-keys', { name: 'bench', permissions: ['project:read'] }, { authorization: `Bearer ${login.access_token}` })).key;
    const read = () => call('GET', '/projects?limit=1', undefined, { 'x-api-key': key });
    for (let i = 0; i < Math.min(100, READS); i++) await read();
    const cpu0 = process.cpuUsage();
    const pg0 = postgresStat().cpuS;
    const t0 = performance.now();
    for (let i = 0; i < READS; i++) await read();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const pg = postgresStat().cpuS - pg0;
    const metrics = (await platform.gateway.metrics()).text;
    const counter = (name) => Number(new RegExp(`^mp_gateway_credential_cache_${name} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    return {
      cpuUs: (cpu.user + cpu.system) / READS,
      pgUs: (pg * 1e6) / READS,
      wallMs: ms / READS,
      hits: counter('hits_total'),
      misses: counter('misses_total'),
    };
  } finally {
    agent.destroy();
    await platform.stop();
    await db.drop().catch(() => undefined);
    await stream.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const on = await measure(10_000);
const off = await measure(0);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(`## Credential cache — ${new Date().toISOString().slice(0, 16)}Z`);
console.log('');
console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}; ${READS} reads per setting, one at a time.`);
console.log('');
console.log('| credential cache | CPU µs per read (platform + client) | PostgreSQL CPU µs per read | wall ms per read | cache hits / misses |');
console.log('|---|---|---|---|---|');
for (const [name, r] of [
  ['on', on],
  ['off', off],
]) {
  console.log(`| ${name} | ${fmt(r.cpuUs)} | ${fmt(r.pgUs)} | ${r.wallMs.toFixed(2)} | ${r.hits} / ${r.misses} |`);
}
console.log('');
console.log(
  `CPU per read with the cache: ${((on.cpuUs / off.cpuUs) * 100).toFixed(0)} % of without; PostgreSQL: ${((on.pgUs / off.pgUs) * 100).toFixed(0)} %.`,
);
console.log(
  `Load average of the machine (shared with other work): ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}.`,
);
if (on.hits < READS) {
  console.error(`the cache answered ${on.hits} of ${READS} reads: it is not in use`);
  process.exitCode = 1;
}
process.exit();
