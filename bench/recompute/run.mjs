// Recomputation benchmark (ADR 0116, 0117): `npm run bench:recompute`.
//
// Starts the platform (one process, real PostgreSQL, a database of its own) and, in the same run:
// 1. the baseline: writes BENCH_RECOMPUTE_READINGS piezometer readings (20,000 by default; raw
//    frequencies, converted at write time) through POST /projects/{id}/data, 1,000 per request;
// 2. adds a calibration valid from the first reading that changes every reading and puts every
//    one over the point's alarm level, and waits until GET /points/{id}/recomputations says done:
//    every reading converted again, its status, rollups, data.updated / data.abnormal, and the
//    alarm replay (one alarm opened for the whole span).
// It prints wall time and CPU time (the platform process, and every PostgreSQL process of the
// machine) per reading of both, and the load average: CPU per reading is the figure to compare,
// the machine being shared.
//
// Options (environment): BENCH_RECOMPUTE_READINGS=20000
// BENCH_SMOKE=1: 1,000 readings (bench/support/smoke.mjs); the setting above still wins
import { cpus, loadavg } from 'node:os';
import { postgresStat, procStat } from '../process-stats.mjs';
import { ADMIN, startBenchPlatform } from '../support/platform.mjs';
import { setting } from '../support/smoke.mjs';

const READINGS = Number(setting('BENCH_RECOMPUTE_READINGS', 20_000, 1_000));
const PER_REQUEST = 1_000;
const START = Date.UTC(2025, 0, 1);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const loadStart = load();

const platform = await startBenchPlatform('recompute');
const { call } = platform;
try {
  const login = await call('POST', '/auth/login', { ...ADMIN, grant_type: 'password' });
  const auth = { authorization: `Bearer ${login.body.data.access_token}` };
  const project = await call('POST', '/projects', { name: 'Recompute bench', number: `RC-${Date.now()}`, start_date: '2024-12-01' }, auth);
  const projectId = project.body.data.id;
  await call('PUT', `/projects/${projectId}/status`, { status: 'in_progress' }, auth);
  const created = await call(
    'POST',
    `/projects/${projectId}/points`,
    {
      number: 'PZ-1',
      name: 'Piezometer',
      sensor_type: 'piezometer',
      // 2700 Hz → 7290 digits: 127.5 kPa with R₀ = 7800 (normal), 177.5 kPa with R₀ = 8000 (alarm)
      calibration: { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 7800 },
      derived_channels: [{ name: 'head', unit: 'm', expression: 'pore_pressure / 9.81' }],
      trigger_levels: [{ level: 'alarm', channel: 'pore_pressure', above: 170 }],
    },
    auth,
  );
  if (created.status !== 200) throw new Error(`point: ${JSON.stringify(created.body)}`);
  const pointId = created.body.data.id;
  const measure = () => ({ at: performance.now(), platform: procStat(platform.pid).cpuS, postgres: postgresStat().cpuS });

  // 1. the baseline: the readings written
  const w0 = measure();
  for (let i = 0; i < READINGS; i += PER_REQUEST) {
    const records = [];
    for (let k = i; k < Math.min(READINGS, i + PER_REQUEST); k++) {
      records.push({ point_id: pointId, measured_at: new Date(START + k * 60_000).toISOString(), values: { frequency: 2700, temperature: 10 + (k % 10) } });
    }
    const res = await call('POST', `/projects/${projectId}/data`, { records }, auth);
    if (res.status !== 200) throw new Error(`write: ${JSON.stringify(res.body).slice(0, 500)}`);
  }
  const w1 = measure();

  // 2. the recomputation of every reading
  const r0 = measure();
  const cal = await call(
    'POST',
    `/points/${pointId}/calibrations`,
    { method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000, valid_from: new Date(START).toISOString() },
    auth,
  );
  if (cal.status !== 200) throw new Error(`calibration: ${JSON.stringify(cal.body)}`);
  let job;
  for (;;) {
    job = (await call('GET', `/points/${pointId}/recomputations`, undefined, auth)).body.data.items[0];
    if (job?.status === 'done') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const r1 = measure();
  if (job.changed !== READINGS) throw new Error(`recomputed ${job.changed} of ${READINGS} readings`);
  const alarms = (await call('GET', `/projects/${projectId}/alarms?point_id=${pointId}`, undefined, auth)).body.data.items;
  if (alarms.length !== 1 || alarms[0].first_over?.count !== READINGS) throw new Error(`alarms: ${JSON.stringify(alarms).slice(0, 500)}`);

  const per = (a, b) => ({
    wallMs: b.at - a.at,
    platformUs: ((b.platform - a.platform) * 1e6) / READINGS,
    postgresUs: ((b.postgres - a.postgres) * 1e6) / READINGS,
  });
  const write = per(w0, w1);
  const recompute = per(r0, r1);
  const row = (name, m) =>
    `| ${name} | ${Math.round(m.wallMs).toLocaleString('en-US')} ms | ${m.platformUs.toFixed(1)} µs | ${m.postgresUs.toFixed(1)} µs | ${(m.platformUs + m.postgresUs).toFixed(1)} µs |`;
  console.log(`recompute bench: ${READINGS.toLocaleString('en-US')} readings, ${cpus().length} CPUs, load ${loadStart} → ${load()}`);
  console.log('| run | wall | platform CPU / reading | PostgreSQL CPU / reading | total CPU / reading |');
  console.log('| --- | --- | --- | --- | --- |');
  console.log(row('write (baseline): POST /data, 1,000 per request', write));
  console.log(row('recomputation: values, status, rollups, events, alarm replay', recompute));
  console.log(
    `recomputation / write, total CPU per reading: ${((recompute.platformUs + recompute.postgresUs) / (write.platformUs + write.postgresUs)).toFixed(2)}`,
  );
} finally {
  await platform.stop();
}
