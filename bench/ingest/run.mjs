// Ingestion benchmark (ADR 0008). One command: `npm run bench:ingest`.
//
// Starts the platform (real PostgreSQL + NATS JetStream, a database and stream of its own) in a
// child process, drives POST /projects/{id}/data through the HTTPS gateway with 1,000-record
// writes at several concurrency levels, and reports records/s, p50/p99 request latency, the time
// until every event was published, and memory (RSS) and CPU of the platform, PostgreSQL and this
// load generator. In the same run it measures the raw PostgreSQL insert rate of identical rows
// (same table, partitions and indexes, the same multi-row INSERT … SELECT FROM unnest with the
// same binary array parameters, straight from pg) as the baseline, and the latency of a
// one-month series of a point holding 1,000,000 records. The data-write and request limits are
// raised for the run (MP_LIMIT_* settings).
//
// Topology (BENCH_TOPOLOGY): `split` (default) runs the data path as it is deployed to scale —
// a gateway process and BENCH_DATA_REPLICAS monitoring-data replicas of their own
// (services/*/dist/main.js, as the Helm chart runs them; the gateway spreads calls over the
// replicas round robin), next to a process holding identity, projects and webhooks (and their
// relays); `one` drives the single-process embedded launcher instead. One replica is the default:
// on two cores it was faster than two or three (fewer processes sharing them; docs/benchmarks.md);
// replicas are for more machines.
//
// Options (environment): BENCH_LEVELS=8,16,24,32  BENCH_REQUESTS=1000 (writes per level)  BENCH_POINTS=200
// BENCH_WARM_UP=40 (writes before the clock starts)
// BENCH_PG_SOCKET=1 (Unix socket instead of TCP)  BENCH_PROFILE=<dir> (CPU profiles of every process)
// BENCH_SERIES=0 (no series query)
// BENCH_DATA_MAIN=<path of a monitoring-data build's dist/main.js> (split only: another build of the
// data path, e.g. the one before rollups, for an A/B of the write path in one session)
// BENCH_SMOKE=1: tiny sizes (bench/support/smoke.mjs); the settings above still win
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { projects } from '@mp/contracts';
import { authFromKeyFiles, createClient, keyFileSettings } from '@mp/grpc';
import { createSelfSignedCertificate, newId } from '@mp/kit';
import { createTestDatabase, createTestStream } from '@mp/testing';
import { arrayParam, createPgDatabase, migrate } from '@mp/db';
import { monitoringDataMigrations, rebuildRollups } from '@mp/monitoring-data';
// the service's own statement, so the baseline inserts exactly as a write does
import { INSERT_SQL } from '../../services/monitoring-data/dist/store-records.js';
import { reading, REFERENCE } from './readings.mjs';
import { postgresStat, procStat, sumStats } from '../process-stats.mjs';
import { setting, smokeOr } from '../support/smoke.mjs';
/* global setInterval, clearInterval */

const here = dirname(fileURLToPath(import.meta.url));
// The smoke sizes still put 8 writes in flight over 20 points with abnormal readings: enough for
// the alarm rules' concurrency to show (a race there answered 500s at these sizes).
const LEVELS = setting('BENCH_LEVELS', '8,16,24,32', '4,8').split(',').map(Number);
// Writes before the clock starts, 8 at a time: V8 was still optimising the hot paths after 5 (the
// first level measured was always the slowest, and TurboFan showed in its profile).
const WARM_UP = Number(setting('BENCH_WARM_UP', 40, 8));
// 1,000 writes (1,000,000 records, ~20 s) per level: at 200 (~4 s) a level measured the platform
// still settling (V8's heap growing, code being optimised) and the edges of the level, and the
// first level was always the slowest; at 1,000 it measures the sustained rate.
const REQUESTS = Number(setting('BENCH_REQUESTS', 1000, 16));
const POINTS = Number(setting('BENCH_POINTS', 200, 20));
const PER_REQUEST = 1000;
const SERIES_RECORDS = smokeOr(1_000_000, 20_000);
/** Requests per series case; the first is a warm-up. */
const SERIES_REQUESTS = smokeOr(8, 2);
const TOPOLOGY = process.env.BENCH_TOPOLOGY ?? 'split';
const DATA_REPLICAS = Number(process.env.BENCH_DATA_REPLICAS ?? 1);
// BENCH_SERIES=0 leaves out the series query (its 1,000,000-record load takes ~10 s), for A/B runs of the write path.
const SERIES = process.env.BENCH_SERIES !== '0';

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');
/** RSS and CPU time of the platform's processes together. */
const platformStat = () => sumStats(children.map((c) => c.pid));
const loadStart = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const db = await createTestDatabase();
// BENCH_PG_SOCKET=1: the platform and the baseline reach PostgreSQL over its Unix socket instead
// of TCP on loopback (as a database on the same host would be configured).
const dbUrl = process.env.BENCH_PG_SOCKET === '1' ? `${db.url}?host=/var/run/postgresql` : db.url;
const stream = createTestStream();
const tls = await createSelfSignedCertificate();
const dataDir = mkdtempSync(join(tmpdir(), 'mp-bench-'));
const env = {
  ...process.env,
  BENCH_TLS: JSON.stringify({ cert: tls.cert, key: tls.key }),
  MP_DATABASE_URL: dbUrl,
  MP_NATS_URL: stream.url,
  MP_NATS_STREAM: stream.stream,
  MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
  MP_OPS_PORT: '0',
  MP_HTTPS_PORT: '0',
  MP_SANDBOX_HTTPS_PORT: '0',
  MP_BIND_HOST: '127.0.0.1',
  MP_ADMIN_USERNAME: 'admin',
  MP_ADMIN_PASSWORD: 'bench password 0123',
  MP_DATA_DIR: dataDir,
  // This tenant's run is allowed far more than the default limits of docs/rules.md#limits (500 records, 100 requests per minute).
  MP_LIMIT_DATA_RECORDS_PER_MINUTE: '1000000000',
  MP_LIMIT_API_PER_MINUTE: '1000000000',
  MP_LIMIT_CONCURRENT: '1000',
};
delete env.MP_REDIS_URL;
// BENCH_PROFILE=<dir> writes a V8 CPU profile of the platform process there (for finding hot spots).
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const child = spawn(process.execPath, [...profile, join(here, 'platform.mjs')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
child.label = TOPOLOGY === 'split' ? 'identity + projects + webhooks' : 'platform';
/** Peak RSS (MB) of each process of the platform over the whole load, by label. */
const peakByProcess = new Map();
/** The processes of the platform under test (measured together). */
const children = [child];
const stopChild = (c) =>
  c.exitCode !== null
    ? Promise.resolve()
    : new Promise((r) => {
        c.once('exit', r);
        c.kill('SIGTERM');
      });
const cleanup = async () => {
  for (const c of children.slice().reverse()) await stopChild(c);
  await db.drop().catch(() => undefined);
  await stream.drop().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
};
try {
  const info = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`platform exited with ${code}`)));
  });
  // split: one more monitoring-data and one more gateway, each a process of its own; the load
  // goes to that gateway, which sends data writes to that monitoring-data.
  let port = info.port;
  if (TOPOLOGY === 'split') {
    writeFileSync(join(dataDir, 'tls.crt'), tls.cert);
    writeFileSync(join(dataDir, 'tls.key'), tls.key);
    const service = (dir, extra, ready) => {
      const main = dir === 'monitoring-data' && process.env.BENCH_DATA_MAIN ? process.env.BENCH_DATA_MAIN : join(here, '../../services', dir, 'dist/main.js');
      const c = spawn(process.execPath, [...profile, main], {
        env: { ...env, MP_LOG_LEVEL: 'info', ...extra },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      c.label = dir === 'monitoring-data' ? `monitoring-data #${children.filter((x) => x.label.startsWith('monitoring-data')).length + 1}` : dir;
      children.push(c);
      return new Promise((resolve, reject) => {
        let out = '';
        let started = false;
        // Errors of the process are shown for the whole run, not only until it is ready.
        c.stdout.on('data', (d) => {
          out += d;
          for (const line of out.split('\n').slice(0, -1)) {
            const rec = JSON.parse(line);
            if (rec.level >= 50) process.stderr.write(line + '\n');
            const found = started ? undefined : ready(rec);
            if (found !== undefined) {
              started = true;
              resolve(found);
            }
          }
          out = out.slice(out.lastIndexOf('\n') + 1);
        });
        c.once('exit', (code) => reject(new Error(`${dir} exited with ${code}`)));
      });
    };
    const mdPorts = [];
    for (let i = 0; i < DATA_REPLICAS; i++)
      mdPorts.push(
        await service(
          'monitoring-data',
          {
            MP_MONITORING_DATA_GRPC_PORT: '0',
            MP_PROJECTS_ADDR: `127.0.0.1:${info.ports.projects}`,
            ...keyFileSettings(join(dataDir, 'keys'), 'monitoring-data'),
          },
          (r) => r.port,
        ),
      );
    const gwUrl = await service(
      'gateway',
      {
        ...keyFileSettings(join(dataDir, 'keys'), 'gateway'),
        MP_TLS_CERT_FILE: join(dataDir, 'tls.crt'),
        MP_TLS_KEY_FILE: join(dataDir, 'tls.key'),
        MP_IDENTITY_ADDR: `127.0.0.1:${info.ports.identity}`,
        MP_PROJECTS_ADDR: `127.0.0.1:${info.ports.projects}`,
        MP_WEBHOOKS_ADDR: `127.0.0.1:${info.ports.webhooks}`,
        MP_MONITORING_DATA_ADDR: mdPorts.map((p) => `127.0.0.1:${p}`).join(','),
        // A standalone gateway counts its limits in Redis (it refuses to start without it).
        MP_REDIS_URL: process.env.MP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        MP_REDIS_PREFIX: `mp:bench:${process.pid}`,
      },
      (r) => r.baseUrl,
    );
    port = Number(new URL(gwUrl).port);
  }
  const base = `https://127.0.0.1:${port}/v3`;
  const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ca: tls.cert });
  // parse: false leaves the body as text (the load loop parses it only when a write failed, so the
  // load generator, which shares the two cores, does not spend ~0.5 ms per write on answers)
  const call = (method, path, body, headers = {}, parse = true) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = https.request(
        `${base}${path}`,
        { method, agent, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode, body: parse ? JSON.parse(text || 'null') : text });
          });
        },
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });

  // A tenant key, a project in progress and its points (set up through the projects service).
  const login = await call('POST', '/auth/login', { username: 'admin', password: 'bench password 0123', grant_type: 'password' });
  const keyRes = await call(
    'POST',
    '/api-keys',
    { name: 'bench', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
    { authorization: `Bearer ${login.body.data.access_token}` },
  );
  const key = { 'x-api-key': keyRes.body.data.key };
  const project = (await call('POST', '/projects', { name: 'Benchmark tunnel', number: 'BENCH-1', start_date: '2020-01-01' }, key)).body.data;
  const sql = new pg.Pool({ connectionString: dbUrl, max: 8 });
  // an idle connection ended by the server (another user of a shared machine terminating
  // backends) must not end the benchmark: the pool opens a new one
  sql.on('error', () => undefined);
  const tenantId = (await sql.query('SELECT tenant_id FROM projects.projects WHERE id = $1', [project.id])).rows[0].tenant_id;
  const caller = { requestId: 'req_bench', tenantId, environment: 'live', principalId: 'key_bench', principalType: 'api_key', permissions: [] };
  const pc = createClient(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${info.ports.projects}`, {
    auth: authFromKeyFiles(join(dataDir, 'keys'), 'gateway'),
    audience: 'projects',
  });
  await pc.changeProjectStatus({ id: project.id, status: 'in_progress' }, caller);
  const points = [];
  for (let i = 0; i < POINTS + 1; i++) {
    const p = await pc.createPoint(
      {
        projectId: project.id,
        number: `B-${i}`,
        name: `Benchmark point ${i}`,
        sensorType: 'total_station',
        reference: REFERENCE,
        warningThreshold: 10,
        alarmThreshold: 20,
        abruptChangeLimit: 50,
        precision: 1,
      },
      caller,
    );
    points.push(p.id);
  }
  pc.close();
  const seriesPoint = points.pop();

  // Request bodies, made before the clock starts: POINTS points × (1000 / POINTS) epochs each,
  // one minute apart, coordinates to the millimetre, about 1 % of them over the warning threshold.
  let epoch = 0;
  const start = Date.UTC(2025, 0, 1);
  const bodies = (n) =>
    Array.from({ length: n }, () => {
      const records = [];
      for (let e = 0; e < PER_REQUEST / POINTS; e++, epoch++) {
        const at = new Date(start + epoch * 60_000).toISOString().replace('Z', '+00:00');
        for (let i = 0; i < POINTS; i++) records.push({ point_id: points[i], measured_at: at, values: reading() });
      }
      return JSON.stringify({ records });
    });

  const pendingEvents = async () => Number((await sql.query('SELECT count(*) FROM monitoring_data.outbox WHERE dispatched_at IS NULL')).rows[0].count);
  const waitForEvents = async () => {
    while ((await pendingEvents()) > 0) await new Promise((r) => setTimeout(r, 20));
  };

  // Warm-up (JIT, partitions, caches), not measured; every answer is checked to hold every record.
  const warmUp = bodies(WARM_UP);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let b = warmUp.pop(); b; b = warmUp.pop()) {
        const res = await call('POST', `/projects/${project.id}/data`, b, key);
        if (res.status !== 200 || res.body.data.records.length !== PER_REQUEST)
          throw new Error(`warm-up write failed: ${JSON.stringify(res.body).slice(0, 500)}`);
      }
    }),
  );
  await waitForEvents();

  const results = [];
  for (const level of LEVELS) {
    const queue = bodies(REQUESTS);
    const latencies = [];
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, platformStat().rssMb);
      for (const c of children) peakByProcess.set(c.label, Math.max(peakByProcess.get(c.label) ?? 0, procStat(c.pid).rssMb));
    }, 100);
    const cpu0 = { platform: platformStat().cpuS, pg: postgresStat().cpuS, client: process.cpuUsage(), each: children.map((c) => procStat(c.pid).cpuS) };
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: level }, async () => {
        for (let b = queue.pop(); b; b = queue.pop()) {
          const s = performance.now();
          const res = await call('POST', `/projects/${project.id}/data`, b, key, false);
          latencies.push(performance.now() - s);
          if (res.status !== 200) throw new Error(`write failed: ${res.body}`);
        }
      }),
    );
    const t1 = performance.now();
    await waitForEvents();
    const t2 = performance.now();
    clearInterval(sampler);
    const cpuClient = process.cpuUsage(cpu0.client);
    const secs = (t1 - t0) / 1000;
    results.push({
      level,
      recordsPerS: (REQUESTS * PER_REQUEST) / secs,
      withEventsPerS: (REQUESTS * PER_REQUEST) / ((t2 - t0) / 1000),
      p50: pct(latencies, 50),
      p99: pct(latencies, 99),
      peakRss,
      cpu: {
        platform: (platformStat().cpuS - cpu0.platform) / secs,
        pg: (postgresStat().cpuS - cpu0.pg) / secs,
        client: (cpuClient.user + cpuClient.system) / 1e6 / secs,
      },
    });
    // CPU per record of each process (up to the last event published), to see where the platform's share goes
    const each = children.map((c, i) => `${c.label} ${(((procStat(c.pid).cpuS - cpu0.each[i]) / (REQUESTS * PER_REQUEST)) * 1e6).toFixed(1)}`);
    console.log(`concurrency ${level}: ${fmt(results.at(-1).recordsPerS)} records/s; CPU µs per record: ${each.join(', ')}`);
  }
  const stored = Number((await sql.query('SELECT count(*) FROM monitoring_data.data_records')).rows[0].count);
  const byType = Object.fromEntries(
    (
      await sql.query(
        `SELECT event_type, count(*)::int AS n, count(*) FILTER (WHERE dispatched_at IS NULL)::int AS pending FROM monitoring_data.outbox GROUP BY 1`,
      )
    ).rows.map((r) => [r.event_type, r]),
  );
  const events = Object.values(byType).reduce((n, r) => n + r.n - r.pending, 0);
  const writes = WARM_UP + REQUESTS * LEVELS.length;
  // Every accepted write emits exactly one data.created; anything else is a bug.
  if (byType['data.created']?.n !== writes) throw new Error(`expected ${writes} data.created events, found ${byType['data.created']?.n ?? 0}`);

  // Baseline: the same rows straight into PostgreSQL — same table shape (the service's own
  // migrations in another schema), same partitions, the service's multi-row INSERT … unnest (the
  // plain one it tries first; the duplicate-skipping one runs only after a conflict), 1,000 rows
  // per statement, at each concurrency level; the fastest is the baseline.
  const best = results.reduce((a, b) => (b.recordsPerS > a.recordsPerS ? b : a));
  const raw = createPgDatabase({ url: dbUrl, schema: 'bench_raw', max: Math.max(...LEVELS) });
  await migrate(raw, 'bench_raw', monitoringDataMigrations);
  for (let m = 0; m < 12; m++) {
    const from = new Date(Date.UTC(2026, m, 1)).toISOString();
    const to = new Date(Date.UTC(2026, m + 1, 1)).toISOString();
    await raw.exec(
      `CREATE TABLE bench_raw.data_records_p${2026}${String(m + 1).padStart(2, '0')} PARTITION OF bench_raw.data_records FOR VALUES FROM ('${from}') TO ('${to}')`,
    );
  }
  let rawEpoch = 0;
  const rawBatches = Array.from({ length: REQUESTS * LEVELS.length + 1 }, () => {
    const c = { id: [], point: [], at: [], off: [], x: [], y: [], z: [], dx: [], dy: [], dz: [], status: [] };
    for (let e = 0; e < PER_REQUEST / POINTS; e++, rawEpoch++) {
      const at = Date.UTC(2026, 0, 1) + rawEpoch * 60_000;
      for (let i = 0; i < POINTS; i++) {
        c.id.push(newId('data'));
        c.point.push(points[i]);
        c.at.push(at);
        c.off.push(0);
        c.x.push(3512345.101);
        c.y.push(512345.602);
        c.z.push(45.301);
        c.dx.push(1);
        c.dy.push(2);
        c.dz.push(1);
        c.status.push('normal');
      }
    }
    return c;
  });
  const rawInsert = (c) =>
    raw.query(
      INSERT_SQL,
      // the columns as the service sends them: binary arrays (arrayParam through the same driver)
      [
        tenantId,
        'live',
        project.id,
        null,
        new Date().toISOString(),
        arrayParam('text', c.id),
        arrayParam('text', c.point),
        arrayParam('timestamptz', c.at),
        arrayParam('int2', c.off),
        ...[c.x, c.y, c.z, c.dx, c.dy, c.dz].map((v) => arrayParam('float8', v)),
        arrayParam('text', c.status),
      ],
      // prepared once per connection, as the service runs it
      { prepare: 'md_insert_records' },
    );
  await rawInsert(rawBatches.pop());
  const rawRates = {};
  const rawPgCores = {};
  for (const level of LEVELS) {
    const rawQueue = rawBatches.splice(0, REQUESTS);
    const r0 = performance.now();
    const pg0 = postgresStat().cpuS;
    await Promise.all(
      Array.from({ length: level }, async () => {
        for (let c = rawQueue.pop(); c; c = rawQueue.pop()) await rawInsert(c);
      }),
    );
    const rawSecs = (performance.now() - r0) / 1000;
    rawRates[level] = (REQUESTS * PER_REQUEST) / rawSecs;
    rawPgCores[level] = (postgresStat().cpuS - pg0) / rawSecs;
  }
  const rawRate = Math.max(...Object.values(rawRates));
  await raw.close();

  let loadS = 0;
  let rebuildS = 0;
  const seriesTimes = {};
  if (SERIES) {
    // A one-month series of one point holding 1,000,000 records (February 2026: one every 2.4 s; fewer in smoke mode).
    const s0 = performance.now();
    await sql
      .query(
        `INSERT INTO monitoring_data.data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, dz, status, created_at, updated_at)
       SELECT 'dat_s' || lpad(to_hex(g), 19, '0'), $1, 'live', $2, $3, timestamptz '2026-02-01T00:00:00Z' + (g * 2419200000.0 / $4) * interval '1 millisecond', 0,
              sin(g / 5000.0) * 8, 'normal', now(), now()
         FROM generate_series(0, $4 - 1) AS g`,
        [tenantId, project.id, seriesPoint, SERIES_RECORDS],
      )
      .catch(async (err) => {
        if (!/no partition/.test(err.message)) throw err;
        await sql.query(
          `CREATE TABLE monitoring_data.data_records_p202602 PARTITION OF monitoring_data.data_records FOR VALUES FROM ('2026-02-01T00:00:00Z') TO ('2026-03-01T00:00:00Z')`,
        );
        return sql.query(
          `INSERT INTO monitoring_data.data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, dz, status, created_at, updated_at)
         SELECT 'dat_s' || lpad(to_hex(g), 19, '0'), $1, 'live', $2, $3, timestamptz '2026-02-01T00:00:00Z' + (g * 2419200000.0 / $4) * interval '1 millisecond', 0,
                sin(g / 5000.0) * 8, 'normal', now(), now()
           FROM generate_series(0, $4 - 1) AS g`,
          [tenantId, project.id, seriesPoint, SERIES_RECORDS],
        );
      });
    await sql.query('VACUUM ANALYZE monitoring_data.data_records_p202602');
    loadS = (performance.now() - s0) / 1000;
    // Series read the rollups (ADR 0023), which rows loaded straight into the table do not reach:
    // rebuilt as an operator does after a bulk load (`npm run rollups:rebuild`).
    const r0 = performance.now();
    const mdDb = createPgDatabase({ url: dbUrl, schema: 'monitoring_data', max: 1 });
    await rebuildRollups(mdDb);
    await mdDb.close();
    await sql.query('VACUUM ANALYZE monitoring_data.data_rollups');
    rebuildS = (performance.now() - r0) / 1000;
    for (const [label, q] of [
      ['200 buckets (default)', ''],
      ['hourly (672 buckets)', '&interval_seconds=3600'],
    ]) {
      const times = [];
      let buckets = 0;
      for (let i = 0; i < SERIES_REQUESTS; i++) {
        const s = performance.now();
        const res = await call('GET', `/points/${seriesPoint}/series?from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z${q}`, undefined, key);
        times.push(performance.now() - s);
        if (res.status !== 200) throw new Error(JSON.stringify(res.body));
        buckets = res.body.data.buckets.length;
        // an empty answer is quick for the wrong reason: the bench would time nothing
        if (buckets === 0) throw new Error(`the series (${label}) of a point holding ${SERIES_RECORDS} records answered no buckets`);
      }
      seriesTimes[label] = { p50: pct(times.slice(1), 50), max: Math.max(...times.slice(1)), buckets };
    }
  }
  await sql.end();

  const cpuModel = cpus()[0]?.model ?? 'unknown';
  console.log('');
  console.log(`## Ingestion benchmark — ${new Date().toISOString().slice(0, 10)}`);
  console.log('');
  console.log(
    `Machine: ${cpus().length} × ${cpuModel}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}, ${execFileSync('psql', ['--version']).toString().trim()}, nats-server ${execFileSync(
      'nats-server',
      ['--version'],
    )
      .toString()
      .trim()
      .replace(/^nats-server: /, '')}.`,
  );
  console.log(
    `Topology: ${TOPOLOGY === 'split' ? `gateway, ${DATA_REPLICAS} monitoring-data replica${DATA_REPLICAS > 1 ? 's' : ''}, and identity + projects + webhooks, each a process` : 'one process (embedded launcher)'}.`,
  );
  console.log(
    `Writes of ${PER_REQUEST} records (${POINTS} points × ${PER_REQUEST / POINTS} epochs, coordinates only: displacements derived, abrupt-change and precision rules on), ${REQUESTS} writes per level, through HTTPS → gateway → gRPC → monitoring-data → PostgreSQL, each with its data.created (and data.abnormal) in the outbox, published to JetStream and consumed by the webhooks service.`,
  );
  console.log('');
  console.log(
    '| concurrency | records/s (responses) | records/s (until every event published) | p50 ms | p99 ms | platform RSS peak MB | CPU cores: platform / PostgreSQL / load generator |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.level} | ${fmt(r.recordsPerS)} | ${fmt(r.withEventsPerS)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${fmt(r.peakRss)} | ${r.cpu.platform.toFixed(2)} / ${r.cpu.pg.toFixed(2)} / ${r.cpu.client.toFixed(2)} |`,
    );
  }
  console.log('');
  console.log(`Peak RSS per process during the load: ${[...peakByProcess].map(([label, mb]) => `${label} ${fmt(mb)} MB`).join(', ')}.`);
  console.log(
    `Stored ${fmt(stored)} records; ${fmt(events)} events published (${fmt(byType['data.created'].n)} data.created, one per write; ${fmt(byType['data.abnormal']?.n ?? 0)} data.abnormal, one per write holding a record over a threshold). PostgreSQL RSS (all backends): ${fmt(postgresStat().rssMb)} MB; load generator RSS: ${fmt(process.memoryUsage().rss / 2 ** 20)} MB.`,
  );
  console.log(
    `Raw PostgreSQL baseline (same table, partitions and indexes; plain INSERT … SELECT FROM unnest of 1,000 rows per statement, binary array parameters, as the service's insert when there is no duplicate): ${LEVELS.map((l) => `${fmt(rawRates[l])} records/s with ${l} connection${l > 1 ? 's' : ''} (PostgreSQL ${rawPgCores[l].toFixed(2)} cores)`).join(', ')}.`,
  );
  console.log(
    `CPU per record: platform ${((best.cpu.platform / best.recordsPerS) * 1e6).toFixed(0)} µs + PostgreSQL ${((best.cpu.pg / best.recordsPerS) * 1e6).toFixed(0)} µs end to end; PostgreSQL ${Math.min(...LEVELS.map((l) => (rawPgCores[l] / rawRates[l]) * 1e6)).toFixed(0)} µs in the raw baseline.`,
  );
  console.log(
    `Best end to end (concurrency ${best.level}): ${fmt(best.recordsPerS)} records/s = ${((best.recordsPerS / rawRate) * 100).toFixed(0)} % of the best raw insert rate (${fmt(rawRate)} records/s).`,
  );
  console.log(
    `Load average of the machine during the run (shared with other work): ${loadStart} at the start, ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end.`,
  );
  console.log('');
  if (SERIES)
    console.log(
      `Series of one point holding ${fmt(SERIES_RECORDS)} records in one month (loaded in ${loadS.toFixed(1)} s; rollups of every point rebuilt in ${rebuildS.toFixed(1)} s), GET /points/{id}/series over the month, through HTTPS:`,
    );
  for (const [label, t] of Object.entries(seriesTimes))
    console.log(`- ${label}: p50 ${t.p50.toFixed(0)} ms, max ${t.max.toFixed(0)} ms (${t.buckets} buckets, ${SERIES_REQUESTS - 1} runs after one warm-up)`);
  agent.destroy();
} finally {
  await cleanup();
}
