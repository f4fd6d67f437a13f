// Webhook delivery throughput and latency (ADR 0009, 0021).
//
// Starts the projects and webhooks services as separate processes (their standalone main.js) on
// the machine's PostgreSQL and NATS JetStream, with a database and stream of their own, and a
// local HTTPS receiver in a process of its own (receiver.mjs). Measures:
//   baseline  a bare keep-alive HTTPS POST loop to the same receiver (what the machine can do), with
//             undici (the service's client) and node:https
//   steady    500 events/s written through the projects service API (gRPC CreateProject) →
//             outbox → relay → JetStream → webhooks → receiver; p50/p99 from the write to arrival,
//             measured after a warm-up at the same rate (--warmup-seconds, default 5)
//   max       events committed to the outbox in bulk as fast as possible; deliveries/s to one
//             webhook and, fanned out, to four; latency from the outbox commit to arrival
// and the resident memory of both services.
//
//   backlog   (--backlog N) N pending deliveries written at once straight into the webhooks
//             service's tables, to one webhook and then over four: delivery alone (claim, sign,
//             send, record), without the producer's relay and the ingestion in front of it
//   history   (--history N) N delivered deliveries, with their events and attempts, spread over
//             four webhooks, written before the other phases: the tables of a platform that has
//             been delivering for a while (ADR 0021: delivery collapsed with history)
//
// Usage: npm run bench:webhooks [-- --events 20000 --steady-seconds 20 --steady-rate 500 --warmup-seconds 5 --history 1000000]
// BENCH_SMOKE=1 (bench/support/smoke.mjs): every phase at tiny sizes, a small history and backlog
// included; options given on the command line still win.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { Agent as UndiciAgent } from 'undici';
import { clearInterval, setInterval } from 'node:timers';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { projects, webhooks } from '@mp/contracts';
import { createClient, generatePlatformKeys, keyFileSettings } from '@mp/grpc';
import { leanUnary } from './lean-grpc.mjs';
import { postgresStat, procStat } from '../process-stats.mjs';
import { newId, newMasterKey } from '@mp/kit';
import { createTestDatabase, createTestStream, queryTestDatabase, testCertificate } from '@mp/testing';
import { smokeOr } from '../support/smoke.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: smokeOr('20000', '200') },
    'steady-seconds': { type: 'string', default: smokeOr('20', '2') },
    'steady-rate': { type: 'string', default: smokeOr('500', '50') },
    'warmup-seconds': { type: 'string', default: smokeOr('5', '1') },
    // Writes V8 CPU profiles of both services to this directory.
    profile: { type: 'string' },
    // Phases to run, comma-separated (steady, backlog, max); all by default.
    only: { type: 'string', default: 'steady,backlog,max' },
    // Delivered rows (with their events and attempts) put in the tables before the phases: the
    // history that made delivery collapse (ADR 0021). 0 measures on empty tables.
    history: { type: 'string', default: smokeOr('0', '200') },
    // Pending deliveries written straight to the webhooks service's tables for the backlog phases
    // (delivery alone: claim, sign, send, record); 0 skips them.
    backlog: { type: 'string', default: smokeOr('0', '100') },
    // Seconds of each bare HTTPS loop of the baseline.
    'baseline-seconds': { type: 'string', default: smokeOr('5', '1') },
  },
});
const MAX_EVENTS = Number(args.events);
const STEADY_SECONDS = Number(args['steady-seconds']);
const STEADY_RATE = Number(args['steady-rate']);
const WARMUP_SECONDS = Number(args['warmup-seconds']);
const HISTORY = Number(args.history);
const BACKLOG = Number(args.backlog);
const BASELINE_SECONDS = Number(args['baseline-seconds']);
// How long a phase waits for its deliveries before it gives up (and the run fails).
const WAIT_MS = smokeOr(180_000, 30_000);
const PHASES = new Set(args.only.split(',').map((p) => p.trim()));
for (const p of PHASES) if (!['steady', 'backlog', 'max'].includes(p)) throw new Error(`--only: unknown phase ${p} (steady, backlog, max)`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const fmt = (ms) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : 'n/a');
const rssMb = (pid) => procStat(pid).rssMb;

// ---------------------------------------------------------------- receiver
const tls = await testCertificate();
const now = () => performance.timeOrigin + performance.now();
/** Called with (event_type, key, arrival ms since epoch) for every event the receiver got. */
let onArrival = () => {};
const receiverProcess = spawn(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), 'receiver.mjs'), JSON.stringify(tls)], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const receiverUrl = await new Promise((resolve) => {
  receiverProcess.on('message', (m) => {
    if (Array.isArray(m)) for (const [type, key, at] of m) onArrival(type, key, at);
    else resolve(`https://127.0.0.1:${m.port}/hook`);
  });
});

// ---------------------------------------------------------------- baseline
/**
 * A bare keep-alive HTTPS POST loop to the same receiver, 64 at a time: with node:https, and with
 * undici (the webhooks service's client since ADR 0059, and the faster of the two; shares are of it).
 */
async function baseline(client, seconds = BASELINE_SECONDS, concurrency = 64) {
  const body = JSON.stringify({ event_id: 'evt_baseline', data: { x: 1 } });
  const headers = { 'content-type': 'application/json' };
  const agent = client === 'undici' ? new UndiciAgent({ connect: { ca: tls.cert } }) : new https.Agent({ keepAlive: true, maxSockets: concurrency });
  const origin = new URL(receiverUrl).origin;
  const postHttps = () =>
    new Promise((resolve, reject) => {
      const req = https.request(
        receiverUrl,
        { method: 'POST', agent, ca: tls.cert, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const postUndici = async () => {
    const res = await agent.request({ origin, path: '/hook', method: 'POST', headers, body });
    await res.body.dump();
  };
  const post = client === 'undici' ? postUndici : postHttps;
  const latencies = [];
  const answered = [];
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = now();
        await post();
        answered.push(now());
        latencies.push(answered.at(-1) - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await agent.destroy();
  latencies.sort((a, b) => a - b);
  // Gaps between answers of a loop that always has 64 requests out: the machine's own pauses, to
  // set the delivery phases' gaps against.
  return { perSecond: latencies.length / elapsed, p50: pct(latencies, 50), p99: pct(latencies, 99), ...idleGaps(answered) };
}

// ---------------------------------------------------------------- platform
const db = await createTestDatabase();
const stream = createTestStream();
const dir = mkdtempSync(join(tmpdir(), 'mp-bench-webhooks-'));
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, tls.cert);
// Each service reads its own service key, as a pod does (no mTLS: the bench measures delivery).
const keys = await generatePlatformKeys({ mtls: false });
keys.writeFiles(join(dir, 'keys'));
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  MP_DATABASE_URL: db.url,
  MP_NATS_URL: stream.url,
  MP_NATS_STREAM: stream.stream,
  MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
  MP_SECRETS_KEY: newMasterKey(),
  MP_DATA_DIR: dir,
  MP_LOG_LEVEL: 'warn',
  // Each process's ops server on a free port (the default 9464 would be taken by the first).
  MP_OPS_PORT: '0',
};
const children = [];
function startService(name, extra) {
  return new Promise((resolve, reject) => {
    const flags = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [];
    const child = spawn(process.execPath, [...flags, `services/${name}/dist/main.js`], {
      cwd: root,
      env: { ...env, MP_LOG_LEVEL: 'info', ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    const onData = (d) => {
      out += d;
      const m = new RegExp(`"port":(\\d+)[^\\n]*${name} service listening`).exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited ${code}:\n${out}`)));
  });
}
const projectsSvc = await startService('projects', { MP_PROJECTS_GRPC_PORT: '0', ...keyFileSettings(join(dir, 'keys'), 'projects') });
const webhooksSvc = await startService('webhooks', {
  ...keyFileSettings(join(dir, 'keys'), 'webhooks'),
  MP_WEBHOOKS_GRPC_PORT: '0',
  MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  NODE_EXTRA_CA_CERTS: caFile,
});
const ctx = {
  requestId: newId('request'),
  tenantId: newId('tenant'),
  environment: 'live',
  principalId: newId('user'),
  principalType: 'user',
  permissions: ['project:read', 'project:write', 'system:admin', 'data:read', 'task:read', 'report:read'],
};
// The steady phase's writes go through a lean caller (lean-grpc.mjs), so the load generator takes
// little of the CPU the platform needs.
const createProject = leanUnary(`127.0.0.1:${projectsSvc.port}`, projects.ProjectsService.createProject, ctx, keys.authFor('gateway'), 'projects');
const webhooksClient = createClient(webhooks.WebhooksClient, webhooks.WebhooksService, `127.0.0.1:${webhooksSvc.port}`, {
  auth: keys.authFor('gateway'),
  audience: 'webhooks',
});
const hook = (events) => webhooksClient.createWebhook({ name: `bench ${events[0]}`, url: receiverUrl, events }, ctx);

const memory = { webhooks: 0, projects: 0 };
const sampler = setInterval(() => {
  memory.webhooks = Math.max(memory.webhooks, rssMb(webhooksSvc.child.pid));
  memory.projects = Math.max(memory.projects, rssMb(projectsSvc.child.pid));
}, 250);
const memoryNow = () => ({ webhooks: rssMb(webhooksSvc.child.pid), projects: rssMb(projectsSvc.child.pid) });

/**
 * CPU seconds used so far by each part of the pipeline: the two services, the receiver, and the
 * machine's PostgreSQL and NATS servers (shared with nothing else while the bench runs).
 */
const natsPids = () => {
  try {
    return execFileSync('pgrep', ['-x', 'nats-server']).toString().trim().split('\n').map(Number);
  } catch {
    return [];
  }
};
const cpuNow = () => ({
  webhooks: procStat(webhooksSvc.child.pid).cpuS,
  projects: procStat(projectsSvc.child.pid).cpuS,
  receiver: procStat(receiverProcess.pid).cpuS,
  postgres: postgresStat().cpuS,
  nats: natsPids().reduce((sum, pid) => sum + procStat(pid).cpuS, 0),
});
/** CPU µs per delivery of each part between two cpuNow() readings. */
const cpuPerDelivery = (before, after, deliveries) =>
  Object.keys(before)
    .map((k) => `${k} ${(((after[k] - before[k]) * 1e6) / Math.max(1, deliveries)).toFixed(0)}`)
    .join(', ');

// ---------------------------------------------------------------- steady
async function steady() {
  await hook(['project.created']);
  const sent = new Map();
  const latencies = [];
  let errors = 0;
  onArrival = (type, number, at) => {
    if (type !== 'project.created') return;
    const t0 = sent.get(number);
    if (t0 !== undefined) latencies.push(at - t0);
  };
  /** Writes `total` projects at STEADY_RATE; resolves when every call has answered. */
  const drive = async (prefix, total) => {
    const started = performance.now();
    const calls = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / STEADY_RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const number = `${prefix}-${i}`;
      sent.set(number, now());
      calls.push(createProject.call({ name: `Bench project ${i}`, number }).catch(() => errors++));
    }
    await Promise.all(calls);
    return (performance.now() - started) / 1000;
  };
  const arrived = async (n) => {
    const deadline = performance.now() + Math.min(60_000, WAIT_MS);
    while (latencies.length < n - errors && performance.now() < deadline) await sleep(50);
  };
  // Warm-up at the same rate, not measured: a service that has just started runs cold (JIT, an
  // empty connection pool, first plans), and the backlog of its first seconds would otherwise
  // dominate the tail of a short run. A running platform is past that.
  if (WARMUP_SECONDS > 0) {
    await drive('W', STEADY_RATE * WARMUP_SECONDS);
    await arrived(STEADY_RATE * WARMUP_SECONDS);
    latencies.length = 0;
    errors = 0;
  }
  const since = new Date().toISOString();
  const total = STEADY_RATE * STEADY_SECONDS;
  const writeSeconds = await drive('B', total);
  await arrived(total);
  const delivered = latencies.length;
  latencies.sort((a, b) => a - b);
  return { total, errors, writeRate: total / writeSeconds, delivered, p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies.at(-1), since };
}

/** Where the time goes, from the rows' own timestamps: outbox commit → relay → ingest → delivered. */
async function breakdown(eventType, since = '1970-01-01T00:00:00Z') {
  const [r] = await queryTestDatabase(
    db.url,
    `WITH x AS (
       SELECT extract(epoch FROM o.dispatched_at - o.occurred_at) * 1000 AS relay,
              extract(epoch FROM e.received_at - o.dispatched_at) * 1000 AS ingest,
              extract(epoch FROM d.delivered_at - e.received_at) * 1000 AS deliver
         FROM projects.outbox o JOIN webhooks.events e USING (event_id) JOIN webhooks.deliveries d USING (event_id)
        WHERE o.event_type = $1 AND d.status = 'delivered' AND o.occurred_at >= $2)
     SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY relay) AS relay50, percentile_cont(0.99) WITHIN GROUP (ORDER BY relay) AS relay99,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY ingest) AS ingest50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ingest) AS ingest99,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY deliver) AS deliver50, percentile_cont(0.99) WITHIN GROUP (ORDER BY deliver) AS deliver99
       FROM x`,
    [eventType, since],
  );
  return `outbox→published p50 ${fmt(r.relay50)} p99 ${fmt(r.relay99)} | published→ingested p50 ${fmt(r.ingest50)} p99 ${fmt(r.ingest99)} | ingested→delivered p50 ${fmt(r.deliver50)} p99 ${fmt(r.deliver99)}`;
}

// ---------------------------------------------------------------- history
/** Writes `n` delivered deliveries of two days ago (events, deliveries, attempts) over four webhooks. */
async function seedHistory(n) {
  const ids = [];
  for (let i = 0; i < 4; i++) ids.push((await hook(['task.created'])).webhook.id);
  const started = performance.now();
  const chunk = 250_000;
  for (let from = 1; from <= n; from += chunk) {
    const to = Math.min(n, from + chunk - 1);
    await queryTestDatabase(
      db.url,
      `WITH e AS (
         INSERT INTO webhooks.events (event_id, event_type, tenant_id, environment, occurred_at, data, received_at)
         SELECT 'evt_hist' || lpad(g::text, 12, '0'), 'task.created', $3, 'live', now() - interval '2 days', '{"task_id":"tsk_1"}', now() - interval '2 days'
           FROM generate_series($1::int, $2::int) g RETURNING event_id
       ), d AS (
         INSERT INTO webhooks.deliveries (id, event_id, webhook_id, tenant_id, environment, event_type, status, attempts, http_status, duration_ms, delivered_at, created_at, updated_at)
         SELECT 'dlv_hist' || substr(e.event_id, 9), e.event_id, ($4::text[])[1 + (substr(e.event_id, 9)::bigint % 4)], $3, 'live', 'task.created', 'delivered', 1, 200, 3,
                now() - interval '2 days', now() - interval '2 days' + substr(e.event_id, 9)::bigint * interval '1 ms', now() - interval '2 days'
           FROM e RETURNING id
       )
       INSERT INTO webhooks.delivery_attempts (delivery_id, cycle, attempt, started_at, finished_at, duration_ms, http_status, outcome, redirects)
       SELECT id, 1, 1, now() - interval '2 days', now() - interval '2 days', 3, 200, 'delivered', 0 FROM d`,
      [from, to, ctx.tenantId, ids],
    );
  }
  await queryTestDatabase(db.url, 'VACUUM ANALYZE webhooks.events, webhooks.deliveries, webhooks.delivery_attempts');
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------- backlog
/** Commits `n` due deliveries over `fanOut` new webhooks in one statement; deliveries/s until the last arrives. */
async function backlog(n, fanOut) {
  const eventType = fanOut === 1 ? 'task.completed' : 'task.overdue';
  const ids = [];
  for (let i = 0; i < fanOut; i++) ids.push((await hook([eventType])).webhook.id);
  const arrivals = [];
  onArrival = (type, _key, at) => {
    if (type === eventType) arrivals.push(at);
  };
  const events = Math.ceil(n / fanOut);
  await queryTestDatabase(
    db.url,
    `WITH e AS (
       INSERT INTO webhooks.events (event_id, event_type, tenant_id, environment, occurred_at, data)
       SELECT 'evt_backlog' || $4::int || '_' || lpad(g::text, 9, '0'), $2, $3, 'live', now(), jsonb_build_object('task_id', 'tsk_' || g)
         FROM generate_series(1, $1::int) g RETURNING event_id
     )
     INSERT INTO webhooks.deliveries (id, event_id, webhook_id, tenant_id, environment, event_type, status, next_attempt_at)
     SELECT 'dlv_' || substr(e.event_id, 5) || '_' || w.ord, e.event_id, w.id, $3, 'live', $2, 'pending', now()
       FROM e CROSS JOIN unnest($5::text[]) WITH ORDINALITY AS w(id, ord)`,
    [events, eventType, ctx.tenantId, fanOut, ids],
  );
  const committed = now();
  const expected = events * fanOut;
  const deadline = performance.now() + WAIT_MS;
  while (arrivals.length < expected && performance.now() < deadline) await sleep(50);
  arrivals.sort((a, b) => a - b);
  const seconds = ((arrivals.at(-1) ?? committed) - committed) / 1000;
  return {
    expected,
    delivered: arrivals.length,
    seconds,
    deliveriesPerSecond: arrivals.length / seconds,
    firstMs: arrivals[0] - committed,
    ...idleGaps(arrivals),
  };
}

// ---------------------------------------------------------------- max
async function max(eventType, fanOut) {
  for (let i = 0; i < fanOut; i++) await hook([eventType]);
  const expected = MAX_EVENTS * fanOut;
  const committed = new Map();
  const latencies = [];
  let first = Infinity;
  let last = 0;
  onArrival = (type, chunkNo, at) => {
    if (type !== eventType) return;
    const t0 = committed.get(chunkNo);
    latencies.push(at - t0);
    arrivals.push(at);
    first = Math.min(first, at);
    last = Math.max(last, at);
  };
  const arrivals = [];
  const chunk = 2000;
  const started = now();
  for (let c = 0; c * chunk < MAX_EVENTS; c++) {
    const from = c * chunk + 1;
    const to = Math.min(MAX_EVENTS, (c + 1) * chunk);
    await queryTestDatabase(
      db.url,
      `INSERT INTO projects.outbox (event_id, event_type, tenant_id, environment, occurred_at, data)
       SELECT 'evt_' || lpad(($4::int * 1000000 + n)::text, 20, '0'), $3, $5, 'live', now(), jsonb_build_object('chunk', $6::int, 'n', n)::text
         FROM generate_series($1::int, $2::int) AS n`,
      [from, to, eventType, fanOut, ctx.tenantId, c],
    );
    committed.set(c, now());
  }
  const deadline = performance.now() + WAIT_MS;
  while (latencies.length < expected && performance.now() < deadline) await sleep(50);
  latencies.sort((a, b) => a - b);
  const seconds = (last - started) / 1000;
  return {
    events: MAX_EVENTS,
    fanOut,
    delivered: latencies.length,
    seconds,
    eventsPerSecond: MAX_EVENTS / seconds,
    deliveriesPerSecond: latencies.length / seconds,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    ...idleGaps(arrivals),
  };
}

/**
 * How long the receiver waited between arrivals while deliveries were due (from the first
 * arrival to the last every delivery of the phase is due): the longest gap, and the time spent in
 * gaps over 50 ms.
 */
function idleGaps(arrivals) {
  arrivals.sort((a, b) => a - b);
  let longest = 0;
  let idle = 0;
  for (let i = 1; i < arrivals.length; i++) {
    const gap = arrivals[i] - arrivals[i - 1];
    longest = Math.max(longest, gap);
    if (gap > 50) idle += gap;
  }
  return { longestGap: longest, idleMs: idle };
}

let exitCode = 0;
/** Phases whose writes failed or whose deliveries did not all arrive: the run fails, whatever its figures. */
const incomplete = [];
try {
  console.log(
    `Webhook delivery benchmark — ${new Date().toISOString()} — ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`,
  );
  const viaHttps = await baseline('node:https');
  const base = await baseline('undici');
  console.log(
    `baseline  bare HTTPS POST loop (64 keep-alive connections): undici ${base.perSecond.toFixed(0)} req/s, p50 ${fmt(base.p50)}, p99 ${fmt(base.p99)}, ` +
      `longest gap between answers ${fmt(base.longestGap)}; node:https ${viaHttps.perSecond.toFixed(0)} req/s, p50 ${fmt(viaHttps.p50)}, p99 ${fmt(viaHttps.p99)}, longest gap ${fmt(viaHttps.longestGap)}`,
  );
  if (HISTORY > 0) {
    const seconds = await seedHistory(HISTORY);
    console.log(`history   ${HISTORY} delivered deliveries (events, attempts) over 4 webhooks, written and analysed in ${seconds.toFixed(1)} s`);
  }
  const idle = memoryNow();
  console.log(`memory    idle: webhooks ${idle.webhooks.toFixed(0)} MB, projects ${idle.projects.toFixed(0)} MB (RSS)`);

  memory.webhooks = 0;
  const s = PHASES.has('steady') ? await steady() : null;
  if (s) {
    console.log(
      `steady    ${s.total} events at ${STEADY_RATE}/s through the projects API after a ${WARMUP_SECONDS} s warm-up at that rate (achieved ${s.writeRate.toFixed(0)}/s, ${s.errors} errors): ` +
        `${s.delivered} delivered, write → arrival p50 ${fmt(s.p50)}, p99 ${fmt(s.p99)}, max ${fmt(s.max)}; peak RSS webhooks ${memory.webhooks.toFixed(0)} MB, projects ${memory.projects.toFixed(0)} MB`,
    );
    console.log(`          stages: ${await breakdown('project.created', s.since)}`);
    if (s.errors > 0 || s.delivered < s.total) incomplete.push(`steady: ${s.errors} failed writes, ${s.delivered} of ${s.total} delivered`);
  }

  for (const fanOut of BACKLOG > 0 && PHASES.has('backlog') ? [1, 4] : []) {
    memory.webhooks = 0;
    const cpuBefore = cpuNow();
    const b = await backlog(BACKLOG, fanOut);
    const cpuAfter = cpuNow();
    console.log(
      `backlog   ${b.expected} due deliveries committed at once, ${fanOut} webhook${fanOut > 1 ? 's' : ''}: ${b.delivered} delivered in ${b.seconds.toFixed(1)} s = ` +
        `${b.deliveriesPerSecond.toFixed(0)} deliveries/s (${((100 * b.deliveriesPerSecond) / base.perSecond).toFixed(0)} % of the bare HTTPS loop); ` +
        `first arrival after ${fmt(b.firstMs)}, longest gap between arrivals ${fmt(b.longestGap)}, ${(b.idleMs / 1000).toFixed(2)} s in gaps over 50 ms; peak RSS webhooks ${memory.webhooks.toFixed(0)} MB`,
    );
    console.log(`          CPU µs per delivery: ${cpuPerDelivery(cpuBefore, cpuAfter, b.delivered)}`);
    if (b.delivered < b.expected) incomplete.push(`backlog to ${fanOut}: ${b.delivered} of ${b.expected} delivered`);
  }

  for (const [type, fanOut] of !PHASES.has('max')
    ? []
    : [
        ['data.created', 1],
        ['report.generated', 4],
      ]) {
    memory.webhooks = 0;
    const cpuBefore = cpuNow();
    const m = await max(type, fanOut);
    const cpuAfter = cpuNow();
    console.log(
      `max       ${m.events} events committed in bulk, ${fanOut} webhook${fanOut > 1 ? 's' : ''}: ${m.delivered} deliveries in ${m.seconds.toFixed(1)} s = ` +
        `${m.eventsPerSecond.toFixed(0)} events/s, ${m.deliveriesPerSecond.toFixed(0)} deliveries/s; commit → arrival p50 ${fmt(m.p50)}, p99 ${fmt(m.p99)}; peak RSS webhooks ${memory.webhooks.toFixed(0)} MB`,
    );
    console.log(
      `          receiver: longest gap between arrivals ${fmt(m.longestGap)}, ${(m.idleMs / 1000).toFixed(2)} s in gaps over 50 ms; ` +
        `${((100 * m.deliveriesPerSecond) / base.perSecond).toFixed(0)} % of the bare HTTPS loop`,
    );
    console.log(`          CPU µs per delivery: ${cpuPerDelivery(cpuBefore, cpuAfter, m.delivered)}`);
    console.log(`          stages: ${await breakdown(type)}`);
    if (m.delivered < m.events * fanOut) incomplete.push(`max to ${fanOut}: ${m.delivered} of ${m.events * fanOut} delivered`);
  }
  if (incomplete.length) {
    console.error(`incomplete: ${incomplete.join('; ')}`);
    exitCode = 1;
  }
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  clearInterval(sampler);
  createProject.close();
  webhooksClient.close();
  for (const c of children) c.kill(args.profile ? 'SIGINT' : 'SIGKILL');
  if (args.profile) await sleep(3000);
  receiverProcess.kill('SIGKILL');
  await db.drop().catch(() => {});
  await stream.drop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
