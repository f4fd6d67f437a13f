// Reports benchmark (ADR 0025): `npm run bench:reports`.
//
// Starts the platform (one process, real PostgreSQL, a database of its own) with its reports
// service generating nothing, and one reports process of its own (services/reports/dist/main.js,
// as a pod runs it) that generates, so its time and memory are measured apart. A project of 50
// points × one year of hourly records (438,000 records, loaded straight into the table and rolled
// up as `npm run rollups:rebuild` does) gets a PDF report of every section; in the same run, the
// baseline: the same report for a project of one point holding 100 records (written through the
// API). Then the CSV + XLSX of the year, which page through every record.
//
// Prints the time from the request to status `generated` (polled every 50 ms), the reports
// process's peak resident memory (VmHWM) and its resident memory before the run.
//
// Options (environment): BENCH_REPORTS_RUNS=3 (timed PDF reports per case), BENCH_REPORTS_RECORDS=0
// to leave out the CSV + XLSX of the year, BENCH_REPORTS_NODE_OPTIONS (NODE_OPTIONS of the reports
// process, e.g. "--max-semi-space-size=4" as the README recommends for reports pods).
// BENCH_SMOKE=1: one report per case, 3 points × 10 days of hourly records (bench/support/smoke.mjs).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { projects } from '@mp/contracts';
import { createPgDatabase } from '@mp/db';
import { authFromKeyFiles, createClient, keyFileSettings } from '@mp/grpc';
import { rebuildRollups } from '@mp/monitoring-data';
import { createTestStream } from '@mp/testing';
import { ADMIN, startBenchPlatform, stopProcess } from '../support/platform.mjs';
import { setting, smokeOr } from '../support/smoke.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const RUNS = Number(setting('BENCH_REPORTS_RUNS', 3, 1));
const RECORDS = process.env.BENCH_REPORTS_RECORDS !== '0';
const POINTS = smokeOr(50, 3);
const HOURS = smokeOr(8760, 240);
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2026, 0, 1);

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const memOf = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const loadStart = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');

const platform = await startBenchPlatform('reports', { MP_LIMIT_REPORTS_PER_HOUR: '1000000', MP_REPORTS_GENERATE: 'false' });
const { info, db, dataDir, call } = platform;
// A standalone reports process publishes its events to JetStream: a stream of its own here.
const stream = createTestStream();
let worker = null;
const cleanup = async () => {
  await stopProcess(worker);
  await platform.stop();
  await stream.drop().catch(() => undefined);
};
try {
  // The generating process: one report at a time, as a reports pod with MP_REPORTS_CONCURRENCY=1.
  worker = spawn(process.execPath, [join(root, 'services/reports/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...(process.env.BENCH_REPORTS_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_REPORTS_NODE_OPTIONS } : {}),
      MP_DATABASE_URL: db.url,
      MP_DATA_DIR: dataDir,
      MP_NATS_URL: stream.url,
      MP_NATS_STREAM: stream.stream,
      MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
      MP_LOG_LEVEL: 'error',
      MP_REPORTS_GRPC_PORT: '0',
      MP_OPS_PORT: '0',
      MP_PROJECTS_ADDR: `127.0.0.1:${info.ports.projects}`,
      MP_MONITORING_DATA_ADDR: `127.0.0.1:${info.ports.monitoringData}`,
      MP_REPORTS_CONCURRENCY: '1',
      MP_REPORTS_POLL_MS: '50',
      ...keyFileSettings(join(dataDir, 'keys'), 'reports'),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  const login = await call('POST', '/auth/login', { ...ADMIN, grant_type: 'password' });
  const keyRes = await call(
    'POST',
    '/api-keys',
    { name: 'bench', permissions: ['project:read', 'project:write', 'data:read', 'data:write', 'report:read', 'report:write'] },
    { authorization: `Bearer ${login.body.data.access_token}` },
  );
  const key = { 'x-api-key': keyRes.body.data.key };
  const sql = new pg.Pool({ connectionString: db.url, max: 2 });
  // pool.end() resolves before its connections have closed, and the database is then dropped WITH
  // (FORCE), which terminates them: the error of an idle connection must not end the run.
  sql.on('error', () => undefined);
  const pc = createClient(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${info.ports.projects}`, {
    auth: authFromKeyFiles(join(dataDir, 'keys'), 'gateway'),
    audience: 'projects',
  });
  const makeProject = async (name, number, points) => {
    const project = (await call('POST', '/projects', { name, number, start_date: '2024-01-01' }, key)).body.data;
    const tenantId = (await sql.query('SELECT tenant_id FROM projects.projects WHERE id = $1', [project.id])).rows[0].tenant_id;
    const caller = { requestId: 'req_bench', tenantId, environment: 'live', principalId: 'key_bench', principalType: 'api_key', permissions: [] };
    await pc.changeProjectStatus({ id: project.id, status: 'in_progress' }, caller);
    const ids = [];
    for (let i = 0; i < points; i++) {
      const p = await pc.createPoint(
        {
          projectId: project.id,
          number: `P-${String(i + 1).padStart(2, '0')}`,
          name: `Settlement point ${i + 1}`,
          sensorType: 'total_station',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          warningThreshold: 10,
          alarmThreshold: 20,
        },
        caller,
      );
      ids.push(p.id);
    }
    return { project, tenantId, ids };
  };

  // Baseline: one point, 100 records through the API.
  const small = await makeProject('Reports baseline', 'BENCH-R1', 1);
  const w = await call(
    'POST',
    `/projects/${small.project.id}/data`,
    {
      records: Array.from({ length: 100 }, (_, i) => ({
        point_id: small.ids[0],
        measured_at: new Date(FROM + i * 87 * 3600_000).toISOString(),
        values: { dx: (i % 9) - 4, dy: (i % 5) - 2, dz: Math.round(Math.sin(i / 7) * 8000) / 1000 },
      })),
    },
    key,
  );
  if (w.status !== 200) throw new Error(JSON.stringify(w.body));

  // The year: 50 points × 8,760 hourly records, straight into the table, then rolled up.
  const big = await makeProject('Reports benchmark dam', 'BENCH-R50', POINTS);
  pc.close();
  const l0 = performance.now();
  for (let m = 0; m < 12; m++) {
    const from = new Date(Date.UTC(2025, m, 1));
    const to = new Date(Date.UTC(2025, m + 1, 1));
    const name = `data_records_p${from.getUTCFullYear()}${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
    await sql.query(
      `CREATE TABLE IF NOT EXISTS monitoring_data.${name} PARTITION OF monitoring_data.data_records FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
    );
  }
  await sql.query(
    `INSERT INTO monitoring_data.data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, dx, dy, dz, status, created_at, updated_at)
     SELECT 'dat_r' || lpad(to_hex(p.i * $5 + h), 19, '0'), $1, 'live', $2, p.id, to_timestamp($6 / 1000.0) + h * interval '1 hour', 0,
            round((cos(h / 300.0 + p.i) * 3)::numeric, 3), round((sin(h / 700.0) * 2 + p.i / 25.0)::numeric, 3), round((-h / 1000.0 + sin(h / 24.0))::numeric, 3), 'normal', now(), now()
       FROM unnest($3::text[]) WITH ORDINALITY AS p(id, i), generate_series(0, $4 - 1) AS h`,
    [big.tenantId, big.project.id, big.ids, HOURS, HOURS, FROM],
  );
  const loadS = (performance.now() - l0) / 1000;
  const mdDb = createPgDatabase({ url: db.url, schema: 'monitoring_data', max: 1 });
  await rebuildRollups(mdDb);
  await mdDb.close();
  await sql.query('VACUUM ANALYZE monitoring_data.data_records');
  await sql.query('VACUUM ANALYZE monitoring_data.data_rollups');
  const total = (await sql.query('SELECT count(*)::int AS n FROM monitoring_data.data_records WHERE project_id = $1', [big.project.id])).rows[0].n;

  const template = async (formats) =>
    (await call('POST', '/templates', { name: `bench ${formats.join('+')}`, sections: ['summary', 'alarms', 'latest', 'points'], formats }, key)).body.data.id;
  const pdfOnly = await template(['pdf']);
  const records = await template(['csv', 'xlsx']);
  const timeReport = async (projectId, templateId) => {
    const s = performance.now();
    const res = await call(
      'POST',
      `/projects/${projectId}/reports`,
      { template_id: templateId, from: new Date(FROM).toISOString(), to: new Date(TO).toISOString() },
      key,
    );
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    for (;;) {
      const r = (await call('GET', `/reports/${res.body.data.id}`, undefined, key)).body.data;
      if (r.status === 'generated') return { ms: performance.now() - s, report: r };
      if (r.status !== 'generating') throw new Error(JSON.stringify(r));
      await new Promise((ok) => setTimeout(ok, 50));
    }
  };

  const rssBefore = memOf(worker.pid, 'VmRSS');
  const times = { small: [], big: [] };
  let bigReport = null;
  for (let i = 0; i <= RUNS; i++) {
    const a = await timeReport(small.project.id, pdfOnly);
    const b = await timeReport(big.project.id, pdfOnly);
    // the first of each is a warm-up (fonts read, connections opened)
    if (i > 0) {
      times.small.push(a.ms);
      times.big.push(b.ms);
    }
    bigReport = b.report;
  }
  const peakPdf = memOf(worker.pid, 'VmHWM');
  let recordsRun = null;
  if (RECORDS) {
    const r = await timeReport(big.project.id, records);
    recordsRun = { ms: r.ms, files: r.report.files, count: r.report.record_count, peak: memOf(worker.pid, 'VmHWM') };
  }
  await sql.end();

  const pdf = bigReport.files.find((f) => f.format === 'pdf');
  console.log('');
  console.log(`## Reports benchmark — ${new Date().toISOString().slice(0, 10)}`);
  console.log('');
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}, ${execFileSync('psql', ['--version']).toString().trim()}; the platform in one process on PostgreSQL, reports generated by a reports process of its own (MP_REPORTS_CONCURRENCY=1${process.env.BENCH_REPORTS_NODE_OPTIONS ? `, NODE_OPTIONS=${process.env.BENCH_REPORTS_NODE_OPTIONS}` : ''}).`,
  );
  console.log(
    `${POINTS} points × ${fmt(HOURS)} hourly records each (${fmt(total)} records, loaded in ${loadS.toFixed(1)} s, rollups rebuilt); PDF of every section (summary, alarm summary, latest values, a plot and statistics per point). Baseline in the same run: the same report for one point holding 100 records. ${RUNS} reports per case after one warm-up, interleaved; time from POST /projects/{id}/reports to status generated (polled every 50 ms):`,
  );
  console.log('');
  console.log('| report | median s | runs s | PDF |');
  console.log('|---|---|---|---|');
  console.log(
    `| baseline: 1 point × 100 records | ${(median(times.small) / 1000).toFixed(2)} | ${times.small.map((x) => (x / 1000).toFixed(2)).join(', ')} | |`,
  );
  console.log(
    `| ${POINTS} points × ${fmt(HOURS)} hours | ${(median(times.big) / 1000).toFixed(2)} | ${times.big.map((x) => (x / 1000).toFixed(2)).join(', ')} | ${fmt(pdf.size_bytes / 1024)} KB, ${POINTS + 4} pages |`,
  );
  if (recordsRun) {
    console.log(
      `| CSV + XLSX of the ${POINTS} points' year (${fmt(recordsRun.count)} rows) | ${(recordsRun.ms / 1000).toFixed(2)} | 1 run | ${recordsRun.files.map((f) => `${f.format} ${fmt(f.size_bytes / 1024 / 1024)} MB`).join(', ')} |`,
    );
  }
  console.log('');
  console.log(
    `Reports process memory: ${rssBefore.toFixed(0)} MB resident before the reports, peak ${peakPdf.toFixed(0)} MB (VmHWM) after the PDF reports${recordsRun ? `, ${recordsRun.peak.toFixed(0)} MB after the CSV + XLSX` : ''}.`,
  );
  console.log(
    `Load average of the machine during the run (shared with other work): ${loadStart} at the start, ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end.`,
  );
} finally {
  await cleanup();
}
