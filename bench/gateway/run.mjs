// Gateway benchmark (issue 13, issue 31). One command: `npm run bench:gateway`.
//
// What the whole gateway costs per request, against a bare Koa HTTPS route in the same run:
//   read   GET /v3/projects?limit=1 — TLS, authentication by API key (identity over gRPC, or the
//          gateway's credential cache checked against the tenant's principal version, ADR 0100),
//          the tenant's rate limits in Redis (raised so they never refuse), projects over gRPC, envelope
//   write  POST /v3/projects/{id}/data with one record — the same, plus the data-record limit,
//          monitoring-data over gRPC, PostgreSQL and the outbox
//   bare   GET and POST /bare on a Koa application in a process of its own (bare.mjs): same
//          certificate, same client, same concurrency; POST parses the same JSON body
// Each phase runs at every level of requests in flight (BENCH_LEVELS, 1 and 32 by default). For
// each: requests/s, p50 and p99 latency, errors (any answer but 200 counts), the CPU per request of
// each hop (gateway, identity + projects, monitoring-data, PostgreSQL; the bare process for the bare
// route), system calls of the serving process per request, and peak resident memory (RSS).
// Targets (issue 31): the read path keeps ≥ 20 % of the bare GET's requests/s, the one-record write
// ≥ 12 % of the bare POST's, compared at the same level in the same run.
//
// Topology (BENCH_TOPOLOGY): `split` (default) runs the gateway and monitoring-data each as a
// process of its own (services/*/dist/main.js, as the Helm chart runs them) in front of a process
// holding identity, projects, webhooks and reports (the embedded launcher, bench/ingest/platform.mjs),
// so each hop's CPU is measured apart; `one` runs everything in one process, as `npm start` does.
// Real PostgreSQL, NATS JetStream and Redis (a database, stream and key prefix of its own). Loopback only.
//
// Options (environment): BENCH_SECONDS=10 (measured per phase and level)  BENCH_WARM_UP_SECONDS=3
// BENCH_LEVELS=1,32 (requests in flight)  BENCH_POINTS=20 (points the writes are spread over)
// BENCH_TOPOLOGY=split|one  MP_CREDENTIAL_CACHE_TTL_MS=0 (the gateway without its credential cache)
// BENCH_PROFILE=<dir> (a V8 CPU profile of every platform process, for finding where its time goes)
// BENCH_PHASES=read (only the bare GET and the read; `write` for the bare POST and the write)
// BENCH_SMOKE=1: a second per phase, 4 in flight (bench/support/smoke.mjs); the settings above still win
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keyFileSettings } from '@mp/grpc';
import { createSelfSignedCertificate } from '@mp/kit';
import { createTestDatabase, createTestStream } from '@mp/testing';
import { postgresStat, procStat } from '../process-stats.mjs';
import { setting } from '../support/smoke.mjs';
/* global setInterval, clearInterval */

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(setting('BENCH_SECONDS', 10, 1));
const WARM_UP_SECONDS = Number(setting('BENCH_WARM_UP_SECONDS', 3, 0.5));
const LEVELS = String(setting('BENCH_LEVELS', '1,32', '1,4'))
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const MAX_LEVEL = Math.max(...LEVELS);
const POINTS = Number(setting('BENCH_POINTS', 20, 3));
const TOPOLOGY = process.env.BENCH_TOPOLOGY ?? 'split';
if (!['split', 'one'].includes(TOPOLOGY)) throw new Error(`BENCH_TOPOLOGY: split or one, not ${TOPOLOGY}`);
const loadStart = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const db = await createTestDatabase();
const stream = createTestStream();
const tls = await createSelfSignedCertificate();
const dataDir = mkdtempSync(join(tmpdir(), 'mp-bench-gateway-'));
const env = {
  ...process.env,
  BENCH_TLS: JSON.stringify({ cert: tls.cert, key: tls.key }),
  MP_DATABASE_URL: db.url,
  MP_NATS_URL: stream.url,
  MP_NATS_STREAM: stream.stream,
  MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
  MP_REDIS_URL: process.env.MP_REDIS_URL ?? 'redis://127.0.0.1:6379',
  MP_REDIS_PREFIX: `mpb:${stream.stream}`,
  MP_HTTPS_PORT: '0',
  MP_SANDBOX_HTTPS_PORT: '0',
  MP_OPS_PORT: '0',
  MP_BIND_HOST: '127.0.0.1',
  MP_ADMIN_USERNAME: 'admin',
  MP_ADMIN_PASSWORD: 'bench password 0123',
  MP_DATA_DIR: dataDir,
  // Limits counted as in production (Redis) but far above what the run sends, so none refuses.
  MP_LIMIT_API_PER_MINUTE: '1000000000',
  MP_LIMIT_DATA_RECORDS_PER_MINUTE: '1000000000',
  MP_LIMIT_AUTH_PER_MINUTE: '1000000',
  MP_LIMIT_CONCURRENT: '100000',
};

/** Starts a process that prints one JSON line when it is ready. */
function start(script, label, flags = []) {
  const child = spawn(process.execPath, [...flags, script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  child.label = label;
  const ready = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve(JSON.parse(out.split('\n')[0]));
      }
    });
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}`)));
  });
  return { child, ready };
}

/**
 * Starts a service's standalone process (services/<dir>/dist/main.js) and resolves with what
 * `ready` finds in its JSON log lines; errors it logs are shown for the whole run.
 */
function startService(dir, label, extra, ready, flags = []) {
  const child = spawn(process.execPath, [...flags, join(here, '../../services', dir, 'dist/main.js')], {
    env: { ...env, MP_LOG_LEVEL: 'info', ...extra },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.label = label;
  const found = new Promise((resolve, reject) => {
    let out = '';
    let started = false;
    child.stdout.on('data', (d) => {
      out += d;
      for (const line of out.split('\n').slice(0, -1)) {
        let rec;
        try {
          rec = JSON.parse(line);
        } catch {
          continue;
        }
        if (rec.level >= 50) process.stderr.write(line + '\n');
        const value = started ? undefined : ready(rec);
        if (value !== undefined) {
          started = true;
          resolve(value);
        }
      }
      out = out.slice(out.lastIndexOf('\n') + 1);
    });
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}`)));
  });
  return { child, ready: found };
}

const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const core = start(join(here, '../ingest/platform.mjs'), TOPOLOGY === 'split' ? 'identity + projects' : 'platform', profile);
const bare = start(join(here, 'bare.mjs'), 'bare Koa');
/** Every process measured: the platform's (in the order of the CPU columns), then the bare route's. */
const children = [core.child, bare.child];
const stop = (c) =>
  c.exitCode !== null
    ? Promise.resolve()
    : new Promise((r) => {
        c.once('exit', r);
        c.kill('SIGTERM');
      });

try {
  const [coreInfo, bareInfo] = await Promise.all([core.ready, bare.ready]);
  let gatewayPort = coreInfo.port;
  /** The process that serves the API (the gateway's own in `split`). */
  let gatewayChild = core.child;
  if (TOPOLOGY === 'split') {
    writeFileSync(join(dataDir, 'tls.crt'), tls.cert);
    writeFileSync(join(dataDir, 'tls.key'), tls.key);
    const md = startService(
      'monitoring-data',
      'monitoring-data',
      {
        MP_MONITORING_DATA_GRPC_PORT: '0',
        MP_PROJECTS_ADDR: `127.0.0.1:${coreInfo.ports.projects}`,
        ...keyFileSettings(join(dataDir, 'keys'), 'monitoring-data'),
      },
      (r) => r.port,
      profile,
    );
    children.splice(1, 0, md.child);
    const mdPort = await md.ready;
    const gw = startService(
      'gateway',
      'gateway',
      {
        ...keyFileSettings(join(dataDir, 'keys'), 'gateway'),
        MP_TLS_CERT_FILE: join(dataDir, 'tls.crt'),
        MP_TLS_KEY_FILE: join(dataDir, 'tls.key'),
        MP_IDENTITY_ADDR: `127.0.0.1:${coreInfo.ports.identity}`,
        MP_PROJECTS_ADDR: `127.0.0.1:${coreInfo.ports.projects}`,
        MP_WEBHOOKS_ADDR: `127.0.0.1:${coreInfo.ports.webhooks}`,
        MP_MONITORING_DATA_ADDR: `127.0.0.1:${mdPort}`,
      },
      (r) => r.baseUrl,
      profile,
    );
    children.unshift(gw.child);
    gatewayChild = gw.child;
    gatewayPort = Number(new URL(await gw.ready).port);
  }
  /** The platform's processes, in the order of the CPU columns. */
  const platformChildren = children.filter((c) => c !== bare.child);
  const base = `https://127.0.0.1:${gatewayPort}/v3`;
  const bareUrl = `https://127.0.0.1:${bareInfo.port}/bare`;
  // One client for every phase: keep-alive connections, as many as requests in flight.
  const agent = new https.Agent({ keepAlive: true, maxSockets: MAX_LEVEL, ca: tls.cert });
  const call = (method, url, body, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = https.request(
        url,
        { method, agent, headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const json = async (method, path, body, headers) => {
    const res = await call(method, `${base}${path}`, body && JSON.stringify(body), headers);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return JSON.parse(res.text).data;
  };

  // A tenant's API key, a project in progress and its points, all through the API.
  const login = await json('POST', '/auth/login', { username: 'admin', password: 'bench password 0123', grant_type: 'password' });
  const key = (
    await json(
      'POST',
      '/api-keys',
      { name: 'bench', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
      { authorization: `Bearer ${login.access_token}` },
    )
  ).key;
  const auth = { 'x-api-key': key };
  const project = await json('POST', '/projects', { name: 'Benchmark tunnel', number: 'BENCH-1', start_date: '2020-01-01' }, auth);
  await json('PUT', `/projects/${project.id}/status`, { status: 'in_progress' }, auth);
  const points = [];
  for (let i = 0; i < POINTS; i++) {
    const body = {
      number: `B-${i}`,
      name: `Benchmark point ${i}`,
      sensor_type: 'total_station',
      reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
      thresholds: { warning: 10, alarm: 20 },
    };
    points.push((await json('POST', `/projects/${project.id}/points`, body, auth)).id);
  }
  // Every write is one new record: points in turn, one second apart from 2021 on (never a duplicate).
  let written = 0;
  const epoch = Date.UTC(2021, 0, 1);
  const nextRecord = () => {
    const n = written++;
    const at = new Date(epoch + Math.floor(n / POINTS) * 1000).toISOString();
    return JSON.stringify({ records: [{ point_id: points[n % POINTS], measured_at: at, values: { dx: 1.2, dy: -0.4, dz: 3.1 } }] });
  };

  const wanted = (process.env.BENCH_PHASES ?? 'read,write').split(',');
  const phases = [
    { group: 'read', name: 'bare Koa GET /bare', send: () => call('GET', bareUrl) },
    { group: 'read', name: 'gateway GET /v3/projects?limit=1', send: () => call('GET', `${base}/projects?limit=1`, undefined, auth) },
    { group: 'write', name: 'bare Koa POST /bare (one record)', send: () => call('POST', bareUrl, nextRecord()) },
    {
      group: 'write',
      name: 'gateway POST /v3/projects/{id}/data (one record)',
      send: () => call('POST', `${base}/projects/${project.id}/data`, nextRecord(), auth),
    },
  ].filter((p) => wanted.includes(p.group));

  /** Runs `send` from `concurrency` loops for `seconds`; latencies of 200 answers, and the rest counted. */
  const drive = async (send, seconds, concurrency) => {
    const latencies = [];
    const errors = new Map();
    const end = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const s = performance.now();
          const res = await send();
          if (res.status === 200) latencies.push(performance.now() - s);
          else errors.set(`${res.status} ${res.text.slice(0, 120)}`, (errors.get(`${res.status} ${res.text.slice(0, 120)}`) ?? 0) + 1);
        }
      }),
    );
    return { latencies: latencies.sort((a, b) => a - b), errors, seconds: (performance.now() - t0) / 1000 };
  };

  // CPU time per answered request of each process, and of PostgreSQL: less sensitive than
  // requests/s to what else the shared machine is doing.
  const us = (cores, perSecond) => fmt((cores / perSecond) * 1e6);
  const cpuPerRequest = (r) =>
    r.bare
      ? `bare ${us(r.cores[children.indexOf(bare.child)], r.perSecond)} + PostgreSQL ${us(r.pgCores, r.perSecond)}`
      : `${platformChildren.map((c) => `${c.label} ${us(r.cores[children.indexOf(c)], r.perSecond)}`).join(' + ')} + PostgreSQL ${us(r.pgCores, r.perSecond)}`;
  // Read and write system calls of a process (/proc/<pid>/io): each socket write or read to
  // PostgreSQL, Redis, a gRPC peer or the client. Counted per request they hardly depend on what
  // else the shared machine is doing, unlike time.
  const syscalls = (pid) => {
    try {
      const io = readFileSync(`/proc/${pid}/io`, 'utf8');
      return { reads: Number(/syscr: (\d+)/.exec(io)[1]), writes: Number(/syscw: (\d+)/.exec(io)[1]) };
    } catch {
      return { reads: 0, writes: 0 };
    }
  };
  const results = [];
  for (const phase of phases) {
    for (const level of LEVELS) {
      await drive(phase.send, WARM_UP_SECONDS, level);
      const peak = new Map();
      const sampler = setInterval(() => {
        for (const c of children) peak.set(c.label, Math.max(peak.get(c.label) ?? 0, procStat(c.pid).rssMb));
      }, 100);
      const cpu0 = children.map((c) => procStat(c.pid).cpuS);
      const pg0 = postgresStat().cpuS;
      const isBare = phase.name.startsWith('bare');
      const server = isBare ? bare.child : gatewayChild;
      const io0 = syscalls(server.pid);
      const r = await drive(phase.send, SECONDS, level);
      const io1 = syscalls(server.pid);
      clearInterval(sampler);
      const result = {
        name: phase.name,
        group: phase.group,
        bare: isBare,
        level,
        perSecond: r.latencies.length / r.seconds,
        p50: pct(r.latencies, 50),
        p99: pct(r.latencies, 99),
        errors: r.errors,
        peak,
        cores: children.map((c, i) => (procStat(c.pid).cpuS - cpu0[i]) / r.seconds),
        // Every PostgreSQL process of the machine: other work on it counts too.
        pgCores: (postgresStat().cpuS - pg0) / r.seconds,
        readsPerRequest: (io1.reads - io0.reads) / r.latencies.length,
        writesPerRequest: (io1.writes - io0.writes) / r.latencies.length,
      };
      results.push(result);
      console.log(
        `${phase.name} at ${level}: ${fmt(result.perSecond)} requests/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${[...r.errors.values()].reduce((a, b) => a + b, 0)}, CPU µs/request ${cpuPerRequest(result)}, system calls/request ${result.readsPerRequest.toFixed(1)} reads + ${result.writesPerRequest.toFixed(1)} writes`,
      );
      for (const [e, n] of r.errors) console.log(`  ${n} × ${e}`);
    }
  }

  console.log('');
  console.log(`## Gateway benchmark — ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`);
  console.log('');
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}.`);
  console.log(
    `Topology: ${TOPOLOGY === 'split' ? `gateway, monitoring-data, and identity + projects (the embedded launcher), each a process` : 'gateway and services in one process (embedded launcher)'} on real PostgreSQL, NATS JetStream and Redis; the bare Koa route in a process of its own; one keep-alive HTTPS client, ${LEVELS.join(' and ')} requests in flight, ${SECONDS} s per phase and level after ${WARM_UP_SECONDS} s of warm-up, loopback; gateway credential cache ${process.env.MP_CREDENTIAL_CACHE_TTL_MS === '0' ? 'off' : 'on'}.`,
  );
  console.log('');
  console.log(
    `| phase | in flight | requests/s | p50 ms | p99 ms | errors | CPU µs per request (${platformChildren.map((c) => c.label).join(' / ')} / PostgreSQL; bare: its process / PostgreSQL) | system calls per request of the serving process (reads + writes) | peak RSS MB (${children.map((c) => c.label).join(' / ')}) |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const errors = [...r.errors.values()].reduce((a, b) => a + b, 0);
    const cpu = r.bare
      ? `${us(r.cores[children.indexOf(bare.child)], r.perSecond)} / ${us(r.pgCores, r.perSecond)}`
      : `${platformChildren.map((c) => us(r.cores[children.indexOf(c)], r.perSecond)).join(' / ')} / ${us(r.pgCores, r.perSecond)}`;
    console.log(
      `| ${r.name} | ${r.level} | ${fmt(r.perSecond)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${errors} | ${cpu} | ${r.readsPerRequest.toFixed(1)} + ${r.writesPerRequest.toFixed(1)} | ${children.map((c) => fmt(r.peak.get(c.label) ?? 0)).join(' / ')} |`,
    );
  }
  console.log('');
  const of = (prefix, level) => results.find((r) => r.name.startsWith(prefix) && r.level === level);
  for (const level of LEVELS) {
    const [bareGet, read, barePost, write] = ['bare Koa GET', 'gateway GET', 'bare Koa POST', 'gateway POST'].map((n) => of(n, level));
    if (read && bareGet) {
      const share = read.perSecond / bareGet.perSecond;
      console.log(
        `Read path at ${level} in flight: ${(share * 100).toFixed(0)} % of the bare GET's requests/s (target ≥ 20 %: ${share >= 0.2 ? 'met' : 'NOT met'}).`,
      );
    }
    if (write && barePost) {
      const share = write.perSecond / barePost.perSecond;
      console.log(
        `Write path at ${level} in flight: ${(share * 100).toFixed(0)} % of the bare POST's requests/s (target ≥ 12 %: ${share >= 0.12 ? 'met' : 'NOT met'}).`,
      );
    }
  }
  console.log(
    `Memory at the end: ${children.map((c) => `${c.label} ${fmt(procStat(c.pid).rssMb)} MB`).join(', ')}, PostgreSQL (all backends) ${fmt(postgresStat().rssMb)} MB, load generator ${fmt(process.memoryUsage().rss / 2 ** 20)} MB.`,
  );
  console.log(
    `Load average of the machine (shared with other work): ${loadStart} at the start, ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end.`,
  );
  agent.destroy();
  if (results.some((r) => r.errors.size)) process.exitCode = 1;
} finally {
  for (const c of children.slice().reverse()) await stop(c);
  await db.drop().catch(() => undefined);
  await stream.drop().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}
