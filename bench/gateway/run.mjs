// Gateway benchmark (ADR 0020). One command: `npm run bench:gateway`.
//
// What the whole gateway costs per request, against a bare Koa HTTPS route in the same run:
//   read   GET /v3/projects?limit=1 — TLS, authentication by API key (identity over gRPC), the
//          tenant's rate limits in Redis (raised so they never refuse), projects over gRPC, envelope
//   write  POST /v3/projects/{id}/data with one record — the same, plus the data-record limit,
//          monitoring-data over gRPC, PostgreSQL and the outbox
//   bare   GET and POST /bare on a Koa application in a process of its own (bare.mjs): same
//          certificate, same client, same concurrency; POST parses the same JSON body
// For each: requests/s, p50 and p99 latency, errors (any answer but 200 counts), and the resident
// memory (RSS) of the processes. Target: the read path keeps at least 40 % of the bare route's
// requests/s.
//
// Topology: the platform as `npm start` runs it — gateway and every service in one process (the
// embedded launcher, bench/ingest/platform.mjs) — but on real PostgreSQL, NATS JetStream and Redis
// (a database, stream and key prefix of its own), as the ingest benchmark's `one` topology. Loopback only.
//
// Options (environment): BENCH_SECONDS=10 (measured per phase)  BENCH_WARM_UP_SECONDS=3
// BENCH_CONCURRENCY=32  BENCH_POINTS=20 (points the writes are spread over)
// BENCH_PROFILE=<dir> (a V8 CPU profile of the platform process, for finding where its time goes)
// BENCH_PHASES=read (only the bare GET and the read; `write` for the bare POST and the write)
// BENCH_NETWORK_GRPC=1: a second platform, the same but with MP_GRPC_IN_PROCESS=false (every gRPC
//   call over loopback HTTP/2 and TLS, as before ADR 0125), in a database, stream and key prefix of
//   its own, measured with the same client in the same run, its phases right after the first's
// BENCH_EMBEDDED=1: the platforms as `npm start` runs them with no infrastructure settings (the
//   embedded PostgreSQL, in-process events, limits in memory) instead of the machine's PostgreSQL,
//   NATS and Redis
// CPU µs per request is printed per hop: the serving process (platform or bare), PostgreSQL, Redis and
// NATS (every process of each on the machine: other work on it counts too).
// BENCH_SMOKE=1: a second per phase, 4 in flight (bench/support/smoke.mjs); the settings above still win
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSelfSignedCertificate } from '@mp/kit';
import { createTestDatabase, createTestStream } from '@mp/testing';
import { postgresStat, procStat, sumStats } from '../process-stats.mjs';
import { setting } from '../support/smoke.mjs';
/* global setInterval, clearInterval */

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(setting('BENCH_SECONDS', 10, 1));
const WARM_UP_SECONDS = Number(setting('BENCH_WARM_UP_SECONDS', 3, 0.5));
const LEVELS = String(setting('BENCH_CONCURRENCY', '1,32', '4'))
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const CONCURRENCY = Math.max(...LEVELS);
const POINTS = Number(setting('BENCH_POINTS', 20, 3));

/** CPU seconds of every process of the machine with this exact name (0 when there is none). */
const namedStat = (name) => {
  try {
    return sumStats(execFileSync('pgrep', ['-x', name]).toString().trim().split('\n').map(Number)).cpuS;
  } catch {
    return 0;
  }
};
const hops = { PostgreSQL: () => postgresStat().cpuS, Redis: () => namedStat('redis-server'), NATS: () => namedStat('nats-server') };
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const NETWORK_GRPC = process.env.BENCH_NETWORK_GRPC === '1';
const EMBEDDED = process.env.BENCH_EMBEDDED === '1';
const tls = await createSelfSignedCertificate();
const dbs = [];
const streams = [];
const dataDirs = [];
/** The environment of one platform: a database, stream, Redis prefix and data folder of its own. */
const platformEnv = async (extra = {}) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-bench-gateway-'));
  dataDirs.push(dataDir);
  const own = { MP_DATA_DIR: dataDir, MP_OPS_PORT: '0', ...extra };
  if (EMBEDDED) {
    const embedded = { ...env, ...own };
    for (const name of ['MP_DATABASE_URL', 'MP_NATS_URL', 'MP_REDIS_URL']) delete embedded[name];
    return embedded;
  }
  const db = await createTestDatabase();
  const stream = createTestStream();
  dbs.push(db);
  streams.push(stream);
  return {
    ...env,
    MP_DATABASE_URL: db.url,
    MP_NATS_URL: stream.url,
    MP_NATS_STREAM: stream.stream,
    MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
    MP_REDIS_URL: process.env.MP_REDIS_URL ?? 'redis://127.0.0.1:6379',
    MP_REDIS_PREFIX: `mpb:${stream.stream}`,
    // Metrics on a free port (in `own`): two platforms (and other benches on the machine) never collide.
    ...own,
  };
};
const env = {
  ...process.env,
  BENCH_TLS: JSON.stringify({ cert: tls.cert, key: tls.key }),
  MP_HTTPS_PORT: '0',
  MP_SANDBOX_HTTPS_PORT: '0',
  MP_BIND_HOST: '127.0.0.1',
  MP_ADMIN_USERNAME: 'admin',
  MP_ADMIN_PASSWORD: 'bench password 0123',
  // Limits counted as in production (Redis) but far above what the run sends, so none refuses.
  MP_LIMIT_API_PER_MINUTE: '1000000000',
  MP_LIMIT_DATA_RECORDS_PER_MINUTE: '1000000000',
  MP_LIMIT_AUTH_PER_MINUTE: '1000000',
  MP_LIMIT_CONCURRENT: '100000',
};

/** Starts a process that prints one JSON line when it is ready. */
function start(script, label, flags = [], childEnv = env) {
  const child = spawn(process.execPath, [...flags, script], { env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] });
  child.label = label;
  const ready = new Promise((resolve, reject) => {
    let out = '';
    // The ready line is the one naming the port; a log line the platform writes before it (a
    // warning of a busy database, say) is passed on to stderr, not taken for it.
    const onData = (d) => {
      out += d;
      let nl;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        let info = null;
        try {
          info = JSON.parse(line);
        } catch {
          // not JSON: a log line
        }
        if (info && typeof info.port === 'number') {
          child.stdout.off('data', onData);
          child.stdout.resume();
          resolve(info);
          return;
        }
        process.stderr.write(`${label}: ${line}\n`);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}`)));
  });
  return { child, ready };
}
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const platform = start(join(here, '../ingest/platform.mjs'), 'platform (gateway + services)', profile, await platformEnv());
const bare = start(join(here, 'bare.mjs'), 'bare Koa');
const network = NETWORK_GRPC
  ? start(join(here, '../ingest/platform.mjs'), 'platform, gRPC over the network', [], await platformEnv({ MP_GRPC_IN_PROCESS: 'false' }))
  : null;
const children = [platform.child, bare.child, ...(network ? [network.child] : [])];
const stop = (c) =>
  c.exitCode !== null
    ? Promise.resolve()
    : new Promise((r) => {
        c.once('exit', r);
        c.kill('SIGTERM');
      });

try {
  const [platformInfo, bareInfo, networkInfo] = await Promise.all([platform.ready, bare.ready, network?.ready]);
  const bareUrl = `https://127.0.0.1:${bareInfo.port}/bare`;
  // One client for every phase: keep-alive connections, as many as requests in flight.
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: tls.cert });
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
  /** A tenant's API key, a project in progress and its points, all through the API of one platform. */
  const prepare = async (port) => {
    const base = `https://127.0.0.1:${port}/v3`;
    const json = async (method, path, body, headers) => {
      const res = await call(method, `${base}${path}`, body && JSON.stringify(body), headers);
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return JSON.parse(res.text).data;
    };
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
    return { base, auth, project, points };
  };
  const targets = [
    { label: 'gateway', info: platformInfo, serving: 0 },
    ...(network ? [{ label: 'gateway, gRPC over the network,', info: networkInfo, serving: 2 }] : []),
  ];
  for (const t of targets) Object.assign(t, await prepare(t.info.port));
  // Every write is one new record: points in turn, one second apart from 2021 on (never a duplicate).
  let written = 0;
  const epoch = Date.UTC(2021, 0, 1);
  const nextRecord = (points = targets[0].points) => {
    const n = written++;
    const at = new Date(epoch + Math.floor(n / POINTS) * 1000).toISOString();
    return JSON.stringify({ records: [{ point_id: points[n % POINTS], measured_at: at, values: { dx: 1.2, dy: -0.4, dz: 3.1 } }] });
  };

  const wanted = (process.env.BENCH_PHASES ?? 'read,write').split(',');
  const phases = [
    { group: 'read', name: 'bare Koa GET /bare', serving: 1, send: () => call('GET', bareUrl) },
    ...targets.map((t) => ({
      group: 'read',
      name: `${t.label} GET /v3/projects?limit=1`,
      serving: t.serving,
      send: () => call('GET', `${t.base}/projects?limit=1`, undefined, t.auth),
    })),
    { group: 'write', name: 'bare Koa POST /bare (one record)', serving: 1, send: () => call('POST', bareUrl, nextRecord()) },
    ...targets.map((t) => ({
      group: 'write',
      name: `${t.label} POST /v3/projects/{id}/data (one record)`,
      serving: t.serving,
      send: () => call('POST', `${t.base}/projects/${t.project.id}/data`, nextRecord(t.points), t.auth),
    })),
  ]
    .filter((p) => wanted.includes(p.group))
    .flatMap((p) => LEVELS.map((inFlight) => ({ ...p, inFlight, name: `${p.name} @${inFlight}` })));

  /** Runs `send` from CONCURRENCY loops for `seconds`; latencies of 200 answers, and the rest counted. */
  const drive = async (send, seconds, inFlight) => {
    const latencies = [];
    const errors = new Map();
    const end = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
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

  // CPU time per answered request of the process that served it (platform or bare) and PostgreSQL:
  // less sensitive than requests/s to what else the shared machine is doing.
  const cpuPerRequest = (r) => {
    const serving = r.cores[r.serving];
    const perHop = Object.keys(hops).map((h, i) => `${h} ${fmt((r.cores[children.length + i] / r.perSecond) * 1e6)}`);
    return `${fmt((serving / r.perSecond) * 1e6)} (+ ${perHop.join(', ')})`;
  };
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
    await drive(phase.send, WARM_UP_SECONDS, phase.inFlight);
    const peak = new Map();
    const sampler = setInterval(() => {
      for (const c of children) peak.set(c.label, Math.max(peak.get(c.label) ?? 0, procStat(c.pid).rssMb));
    }, 100);
    const cpu0 = children.map((c) => procStat(c.pid).cpuS);
    const hop0 = Object.values(hops).map((f) => f());
    const server = children[phase.serving];
    const io0 = syscalls(server.pid);
    const r = await drive(phase.send, SECONDS, phase.inFlight);
    const io1 = syscalls(server.pid);
    clearInterval(sampler);
    const cores = children.map((c, i) => (procStat(c.pid).cpuS - cpu0[i]) / r.seconds);
    // Every PostgreSQL, Redis and NATS process of the machine: other work on them counts too.
    for (const [i, f] of Object.values(hops).entries()) cores.push((f() - hop0[i]) / r.seconds);
    const result = {
      name: phase.name,
      serving: phase.serving,
      perSecond: r.latencies.length / r.seconds,
      p50: pct(r.latencies, 50),
      p99: pct(r.latencies, 99),
      errors: r.errors,
      peak,
      cores,
      readsPerRequest: (io1.reads - io0.reads) / r.latencies.length,
      writesPerRequest: (io1.writes - io0.writes) / r.latencies.length,
    };
    results.push(result);
    console.log(
      `${phase.name}: ${fmt(result.perSecond)} requests/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${[...r.errors.values()].reduce((a, b) => a + b, 0)}, CPU µs/request ${cpuPerRequest(result)}, system calls/request ${result.readsPerRequest.toFixed(1)} reads + ${result.writesPerRequest.toFixed(1)} writes`,
    );
    for (const [e, n] of r.errors) console.log(`  ${n} × ${e}`);
  }

  const result = (name, inFlight) => results.find((r) => r.name.startsWith(name) && r.name.endsWith(` @${inFlight}`));
  const labels = children.map((c) => c.label);
  console.log('');
  console.log(`## Gateway benchmark — ${new Date().toISOString().slice(0, 10)}`);
  console.log('');
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}.`);
  console.log(
    `Topology: gateway and services in one process (embedded launcher) on ${EMBEDDED ? 'the embedded PostgreSQL (PGlite), in-process events and limits in memory, as `npm start` with no settings' : 'real PostgreSQL, NATS JetStream and Redis'}${network ? ', gRPC calls between them in-process; a second such platform with every gRPC call over the network (MP_GRPC_IN_PROCESS=false)' : ''}; the bare Koa route in a process of its own; one keep-alive HTTPS client, ${LEVELS.join(' and ')} requests in flight, ${SECONDS} s per phase after ${WARM_UP_SECONDS} s of warm-up, loopback.`,
  );
  console.log('');
  console.log(
    `| phase @ in flight | requests/s | p50 ms | p99 ms | errors | peak RSS MB (${labels.join(' / ')}) | CPU cores (${[...labels, ...Object.keys(hops)].join(' / ')}) | CPU µs per request (serving process + other hops) | system calls per request (reads + writes) |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const errors = [...r.errors.values()].reduce((a, b) => a + b, 0);
    console.log(
      `| ${r.name} | ${fmt(r.perSecond)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${errors} | ${children.map((c) => fmt(r.peak.get(c.label) ?? 0)).join(' / ')} | ${r.cores.map((x) => x.toFixed(2)).join(' / ')} | ${cpuPerRequest(r)} | ${r.readsPerRequest.toFixed(1)} + ${r.writesPerRequest.toFixed(1)} |`,
    );
  }
  console.log('');
  for (const inFlight of LEVELS) {
    const [bareGet, barePost] = ['bare Koa GET', 'bare Koa POST'].map((n) => result(n, inFlight));
    for (const t of targets) {
      const [read, write] = [`${t.label} GET`, `${t.label} POST`].map((n) => result(n, inFlight));
      const who = t.serving === 0 ? '' : ` (${t.label.replace(/,$/, '')})`;
      if (read) {
        const share = read.perSecond / bareGet.perSecond;
        console.log(
          `Read path${who} @${inFlight}: ${(share * 100).toFixed(0)} % of the bare route's requests/s (target ≥ 20 %: ${share >= 0.2 ? 'met' : 'NOT met'}).`,
        );
      }
      if (write) {
        const share = write.perSecond / barePost.perSecond;
        console.log(
          `Write path${who} @${inFlight}: ${(share * 100).toFixed(0)} % of the bare POST's requests/s (target ≥ 12 %: ${share >= 0.12 ? 'met' : 'NOT met'}).`,
        );
      }
    }
  }
  console.log(
    `Memory at the end: ${children
      .filter((c) => c !== bare.child)
      .map((c) => `${c.label} ${fmt(procStat(c.pid).rssMb)} MB`)
      .join(
        ', ',
      )}, bare Koa ${fmt(procStat(bare.child.pid).rssMb)} MB, PostgreSQL (all backends) ${fmt(postgresStat().rssMb)} MB, load generator ${fmt(process.memoryUsage().rss / 2 ** 20)} MB.`,
  );
  console.log(
    `Load average of the machine (shared with other work): ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}.`,
  );
  agent.destroy();
  if (results.some((r) => r.errors.size)) process.exitCode = 1;
} finally {
  for (const c of children) await stop(c);
  for (const db of dbs) await db.drop().catch(() => undefined);
  for (const stream of streams) await stream.drop().catch(() => undefined);
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}
