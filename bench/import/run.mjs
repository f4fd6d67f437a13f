// Logger file import benchmark (docs/imports.md, ADR 0120): `npm run bench:import`.
//
// Starts the platform (one process, real PostgreSQL, a database of its own) and, in the same run:
// 1. uploads a CSV file of BENCH_IMPORT_ROWS rows (1,000,000 by default; one row per minute, one
//    column per point, BENCH_IMPORT_COLUMNS points) through POST /projects/{id}/data/imports,
//    written by this process as it is sent (never whole in memory), and times the upload and the
//    whole import (from the first byte until GET /data/imports/{id} says completed);
// 2. writes the same number of readings through the JSON write path, POST /projects/{id}/data with
//    1,000 records per request and BENCH_IMPORT_JSON_INFLIGHT requests in flight, to other points
//    of the same types, and times it.
// It prints rows/s and readings/s of both, the platform's CPU per reading of both (less sensitive
// to a shared machine's load), and the platform's RSS before and after. The data-write
// limit is raised for the run (the import would otherwise go at the plan's rate, 500 a minute).
//
// Options (environment): BENCH_IMPORT_ROWS=1000000  BENCH_IMPORT_COLUMNS=1  BENCH_IMPORT_JSON_INFLIGHT=4
// BENCH_SMOKE=1: 2,000 rows (bench/support/smoke.mjs); the settings above still win
import https from 'node:https';
import { cpus, loadavg, totalmem } from 'node:os';
import { procStat } from '../process-stats.mjs';
import { ADMIN, startBenchPlatform } from '../support/platform.mjs';
import { setting } from '../support/smoke.mjs';

const ROWS = Number(setting('BENCH_IMPORT_ROWS', 1_000_000, 2_000));
const COLUMNS = Number(setting('BENCH_IMPORT_COLUMNS', 1, 1));
const INFLIGHT = Number(setting('BENCH_IMPORT_JSON_INFLIGHT', 4, 2));
const START = Date.UTC(2024, 0, 1);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const loadStart = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');

const platform = await startBenchPlatform('import');
const { info, call } = platform;
try {
  const login = await call('POST', '/auth/login', { ...ADMIN, grant_type: 'password' });
  const auth = { authorization: `Bearer ${login.body.data.access_token}` };
  const project = await call('POST', '/projects', { name: 'Import bench', number: `IMP-${Date.now()}`, start_date: '2023-12-01' }, auth);
  const projectId = project.body.data.id;
  await call('PUT', `/projects/${projectId}/status`, { status: 'in_progress' }, auth);
  const point = async (n) => {
    const res = await call('POST', `/projects/${projectId}/points`, { number: n, name: n, sensor_type: 'thermometer' }, auth);
    if (res.status !== 200) throw new Error(`point: ${JSON.stringify(res.body)}`);
    return res.body.data.id;
  };
  const filePoints = [];
  const jsonPoints = [];
  for (let i = 0; i < COLUMNS; i++) filePoints.push(await point(`F-${i}`));
  for (let i = 0; i < COLUMNS; i++) jsonPoints.push(await point(`J-${i}`));
  const profile = await call(
    'POST',
    `/projects/${projectId}/import-profiles`,
    {
      name: 'bench',
      format: 'csv',
      timestamp_column: 'time',
      time_zone: 'UTC',
      columns: filePoints.map((p, i) => ({ column: `T${i}`, point_id: p, channel: 'temperature' })),
    },
    auth,
  );
  if (profile.status !== 200) throw new Error(`profile: ${JSON.stringify(profile.body)}`);
  const value = (i, c) => ((i * 7 + c * 3) % 400) / 10;
  const rssBefore = procStat(platform.pid).rssMb;

  // 1. the import
  const cpu0 = procStat(platform.pid).cpuS;
  const t0 = performance.now();
  const uploaded = await new Promise((resolve, reject) => {
    const req = https.request(
      `https://127.0.0.1:${info.port}/v3/projects/${projectId}/data/imports?profile_id=${profile.body.data.id}`,
      { method: 'POST', ca: undefined, rejectUnauthorized: false, headers: { ...auth, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    let i = 0;
    const header = `time,${filePoints.map((_, c) => `T${c}`).join(',')}\n`;
    req.write(header);
    const pump = () => {
      while (i < ROWS) {
        let block = '';
        const end = Math.min(ROWS, i + 2000);
        for (; i < end; i++) {
          let line = new Date(START + i * 60_000).toISOString();
          for (let c = 0; c < COLUMNS; c++) line += `,${value(i, c)}`;
          block += `${line}\n`;
        }
        if (!req.write(block)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
  if (uploaded.status !== 200) throw new Error(`upload: ${JSON.stringify(uploaded.body)}`);
  const uploadS = (performance.now() - t0) / 1000;
  let result;
  for (;;) {
    result = (await call('GET', `/data/imports/${uploaded.body.data.import_id}`, undefined, auth)).body.data;
    if (result.status !== 'processing') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const importS = (performance.now() - t0) / 1000;
  if (result.status !== 'completed' || result.stored !== ROWS * COLUMNS)
    throw new Error(`import: ${JSON.stringify({ ...result, errors: result.errors.slice(0, 3) })}`);
  const rssAfterImport = procStat(platform.pid).rssMb;
  const cpu1 = procStat(platform.pid).cpuS;

  // 2. the JSON write path, the same readings
  const total = ROWS * COLUMNS;
  let next = 0;
  const t1 = performance.now();
  const worker = async () => {
    for (;;) {
      const from = next;
      if (from >= total) return;
      next = Math.min(total, from + 1000);
      const records = [];
      for (let k = from; k < next; k++) {
        const i = Math.floor(k / COLUMNS);
        const c = k % COLUMNS;
        records.push({ point_id: jsonPoints[c], measured_at: new Date(START + i * 60_000).toISOString(), values: { temperature: value(i, c) } });
      }
      const res = await call('POST', `/projects/${projectId}/data`, { records }, auth);
      if (res.status !== 200) throw new Error(`write: ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  const jsonS = (performance.now() - t1) / 1000;
  const cpu2 = procStat(platform.pid).cpuS;
  // The platform's own CPU per reading (gateway and services, one process; PostgreSQL apart): less
  // sensitive to a shared machine's load than rows per second.
  const usPer = (s) => ((s * 1e6) / total).toFixed(1);

  console.log(
    `# import bench — ${new Date().toISOString()} — ${cpus().length} cores, ${fmt(totalmem() / 1024 ** 3)} GB, load at start ${loadStart}, at end ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(`file: ${fmt(ROWS)} rows × ${COLUMNS} point column(s) = ${fmt(total)} readings, ${fmt(result.bytes / 1024 / 1024)} MB`);
  console.log(
    `import:     upload ${uploadS.toFixed(1)} s, whole import ${importS.toFixed(1)} s → ${fmt(ROWS / importS)} rows/s, ${fmt(total / importS)} readings/s; platform CPU ${usPer(cpu1 - cpu0)} µs/reading`,
  );
  console.log(
    `JSON write: ${INFLIGHT} × 1,000-record requests in flight, ${jsonS.toFixed(1)} s → ${fmt(total / jsonS)} records/s; platform CPU ${usPer(cpu2 - cpu1)} µs/record`,
  );
  console.log(`platform RSS: ${fmt(rssBefore)} MB before, ${fmt(rssAfterImport)} MB after the import, ${fmt(procStat(platform.pid).rssMb)} MB at the end`);
} finally {
  await platform.stop();
}
