// Series benchmark (ADR 0023): `npm run bench:series`.
//
// Starts the platform (one process, real PostgreSQL, a database of its own) and measures
// GET /points/{id}/series through HTTPS at 500 buckets over a month, a year and five years for a
// point holding 1,000,000 records (2021–2025, one every ~158 s, loaded straight into the table and
// rolled up with the rebuild `npm run rollups:rebuild` runs) and, in the same run and interleaved
// with it, the same requests for a point holding 100 records (written through the API, so the write
// path keeps its rollups). For comparison it times the aggregate over raw rows the service ran
// before rollups (ADR 0023), as SQL straight from pg, over the same ranges.
//
// Options (environment): BENCH_SERIES_RUNS=25 (timed requests per case, after one warm-up)
// BENCH_SMOKE=1: 2 requests per case over a point of 20,000 records (bench/support/smoke.mjs)
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { projects } from '@mp/contracts';
import { createPgDatabase } from '@mp/db';
import { authFromKeyFiles, createClient } from '@mp/grpc';
import { rebuildRollups } from '@mp/monitoring-data';
import { ADMIN, startBenchPlatform } from '../support/platform.mjs';
import { setting, smokeOr } from '../support/smoke.mjs';

const RUNS = Number(setting('BENCH_SERIES_RUNS', 25, 2));
const BIG = smokeOr(1_000_000, 20_000);
/** Timed runs of the raw aggregate per range, after one warm-up. */
const RAW_RUNS = smokeOr(5, 1);
const FIRST = Date.UTC(2021, 0, 1);
const LAST = Date.UTC(2026, 0, 1);
// The ranges end at an instant that is no whole hour (as "now" is), so each has raw-row edges.
const END = Date.UTC(2025, 11, 31, 13, 47, 12);
const DAY = 86_400_000;
const CASES = [
  ['a month', 30 * DAY],
  ['a year', 365 * DAY],
  ['five years', END - FIRST],
];

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const loadStart = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');

const platform = await startBenchPlatform('series');
const { info, db, dataDir, call } = platform;
const cleanup = () => platform.stop();
try {
  const login = await call('POST', '/auth/login', { ...ADMIN, grant_type: 'password' });
  const keyRes = await call(
    'POST',
    '/api-keys',
    { name: 'bench', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
    { authorization: `Bearer ${login.body.data.access_token}` },
  );
  const key = { 'x-api-key': keyRes.body.data.key };
  const project = (await call('POST', '/projects', { name: 'Series benchmark dam', number: 'BENCH-S', start_date: '2020-01-01' }, key)).body.data;
  const sql = new pg.Pool({ connectionString: db.url, max: 2 });
  // pool.end() resolves before its connections have closed, and the database is then dropped WITH
  // (FORCE), which terminates them: the error of an idle connection must not end the run.
  sql.on('error', () => undefined);
  const tenantId = (await sql.query('SELECT tenant_id FROM projects.projects WHERE id = $1', [project.id])).rows[0].tenant_id;
  const caller = { requestId: 'req_bench', tenantId, environment: 'live', principalId: 'key_bench', principalType: 'api_key', permissions: [] };
  const pc = createClient(projects.ProjectsClient, projects.ProjectsService, `127.0.0.1:${info.ports.projects}`, {
    auth: authFromKeyFiles(join(dataDir, 'keys'), 'gateway'),
    audience: 'projects',
  });
  await pc.changeProjectStatus({ id: project.id, status: 'in_progress' }, caller);
  const point = async (n) =>
    (
      await pc.createPoint(
        {
          projectId: project.id,
          number: n,
          name: n,
          sensorType: 'total_station',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          warningThreshold: 10,
          alarmThreshold: 20,
          precision: 1,
        },
        caller,
      )
    ).id;
  const big = await point('BIG-1');
  const small = await point('SMALL-1');
  pc.close();

  // 100 records of the small point through the API (its last month), so its rollups come from the write path.
  const records = Array.from({ length: 100 }, (_, i) => ({
    point_id: small,
    measured_at: new Date(END - 29 * DAY + i * 7 * 3600_000).toISOString(),
    values: { dx: (i % 9) - 4, dy: (i % 5) - 2, dz: Math.round(Math.sin(i / 7) * 8000) / 1000 },
  }));
  const w = await call('POST', `/projects/${project.id}/data`, { records }, key);
  if (w.status !== 200) throw new Error(JSON.stringify(w.body));

  // 1,000,000 records of the big point, five years, straight into the table (monthly partitions).
  const l0 = performance.now();
  for (let m = 0; m < 60; m++) {
    const from = new Date(Date.UTC(2021, m, 1));
    const to = new Date(Date.UTC(2021, m + 1, 1));
    const name = `data_records_p${from.getUTCFullYear()}${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
    await sql.query(
      `CREATE TABLE IF NOT EXISTS monitoring_data.${name} PARTITION OF monitoring_data.data_records FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
    );
  }
  await sql.query(
    `INSERT INTO monitoring_data.data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, dx, dy, dz, status, created_at, updated_at)
     SELECT 'dat_b' || lpad(to_hex(g), 19, '0'), $1, 'live', $2, $3, to_timestamp($5 / 1000.0) + (g * ($6 - $5)::float8 / $4) * interval '1 millisecond', 0,
            round((cos(g / 3000.0) * 3)::numeric, 3), round((sin(g / 7000.0) * 2)::numeric, 3), round((sin(g / 5000.0) * 8)::numeric, 3), 'normal', now(), now()
       FROM generate_series(0, $4 - 1) AS g`,
    [tenantId, project.id, big, BIG, FIRST, LAST],
  );
  const loadS = (performance.now() - l0) / 1000;
  const r0 = performance.now();
  const mdDb = createPgDatabase({ url: db.url, schema: 'monitoring_data', max: 1 });
  const rebuilt = await rebuildRollups(mdDb);
  await mdDb.close();
  const rebuildS = (performance.now() - r0) / 1000;
  await sql.query('VACUUM ANALYZE monitoring_data.data_records');
  await sql.query('VACUUM ANALYZE monitoring_data.data_rollups');

  // The same requests for both points, interleaved (the machine is shared: load moves over time).
  const results = new Map();
  const before = new Map();
  for (const [label, span] of CASES) {
    const q = `from=${new Date(END - span).toISOString()}&to=${new Date(END).toISOString()}&buckets=500`;
    const times = { big: [], small: [] };
    const buckets = {};
    for (let i = 0; i <= RUNS; i++)
      for (const [which, id] of [
        ['big', big],
        ['small', small],
      ]) {
        const s = performance.now();
        const res = await call('GET', `/points/${id}/series?${q}`, undefined, key);
        const ms = performance.now() - s;
        if (res.status !== 200) throw new Error(JSON.stringify(res.body));
        if (i > 0) times[which].push(ms);
        buckets[which] = res.body.data.buckets.length;
        if (which === 'big') buckets.interval = res.body.data.interval_seconds;
      }
    results.set(label, { times, buckets });
    // what the service ran before rollups: one aggregate over the raw rows of the range
    const interval = Math.max(1, Math.ceil(span / 1000 / 500));
    const old = [];
    for (let i = 0; i <= RAW_RUNS; i++) {
      const s = performance.now();
      await sql.query(
        `SELECT date_bin(make_interval(secs => $4), measured_at, $2::timestamptz) AS start, count(*)::int AS count,
                min(dx), avg(dx), max(dx), min(dy), avg(dy), max(dy), min(dz), avg(dz), max(dz)
           FROM monitoring_data.data_records
          WHERE point_id = $1 AND measured_at >= $2 AND measured_at < $3 AND quality_flag <> 'invalid' GROUP BY 1 ORDER BY 1`,
        [big, new Date(END - span).toISOString(), new Date(END).toISOString(), interval],
      );
      if (i > 0) old.push(performance.now() - s);
    }
    before.set(label, pct(old, 50));
  }
  await sql.end();

  console.log('');
  console.log(`## Series benchmark — ${new Date().toISOString().slice(0, 10)}`);
  console.log('');
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}, ${execFileSync('psql', ['--version']).toString().trim()}; the platform in one process (embedded launcher) on PostgreSQL.`,
  );
  console.log(
    `A point holding ${fmt(BIG)} records over 2021–2025 (loaded in ${loadS.toFixed(1)} s; rollups rebuilt in ${rebuildS.toFixed(1)} s, ${fmt(rebuilt.rows)} rows) and one holding 100 (written through the API). GET /points/{id}/series?buckets=500 through HTTPS, ranges ending ${new Date(END).toISOString()}, ${RUNS} requests per case after one warm-up, both points interleaved:`,
  );
  console.log('');
  console.log(
    `| range | buckets (width) | ${fmt(BIG)} records p50 / p90 ms | 100 records p50 / p90 ms | ratio of p50s | before rollups: raw aggregate in PostgreSQL alone, p50 ms |`,
  );
  console.log('|---|---|---|---|---|---|');
  for (const [label, { times, buckets }] of results) {
    const b50 = pct(times.big, 50),
      s50 = pct(times.small, 50);
    console.log(
      `| ${label} | ${buckets.big} (${buckets.interval / 3600} h) | ${b50.toFixed(1)} / ${pct(times.big, 90).toFixed(1)} | ${s50.toFixed(1)} / ${pct(times.small, 90).toFixed(1)} | ${(b50 / s50).toFixed(2)} | ${before.get(label).toFixed(0)} |`,
    );
  }
  console.log('');
  console.log(
    `Load average of the machine during the run (shared with other work): ${loadStart} at the start, ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end.`,
  );
} finally {
  await cleanup();
}
