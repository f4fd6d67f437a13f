// What rollups add to a write, measured where a shared machine cannot blur it: the CPU time of
// the PostgreSQL backend (from /proc) running the write path's statements, for 1,000-record writes
// shaped as bench/ingest sends them (200 points × 5 readings a minute apart), alternately without
// rollups (the insert alone, as before ADR 0023) and with them (the insert and addToRollups, plus
// folding every 10 writes, as RollupFolder does once a second at ~50 writes/s).
// One command: `node bench/ingest/rollups-cost.mjs` (after a build). BENCH_WRITES=300 per variant
// (BENCH_SMOKE=1: a handful).
import { createPgDatabase, migrate } from '@mp/db';
import { monitoringDataMigrations } from '@mp/monitoring-data';
import { createTestDatabase } from '@mp/testing';
import { loadavg } from 'node:os';
import { procStat } from '../process-stats.mjs';
import { insertRecords } from '../../services/monitoring-data/dist/store-records.js';
import { addToRollups, foldRollups } from '../../services/monitoring-data/dist/rollups.js';
import { newDataIds } from '../../services/monitoring-data/dist/ids.js';
import { reading, REFERENCE } from './readings.mjs';
import { setting, smokeOr } from '../support/smoke.mjs';

const WRITES = Number(setting('BENCH_WRITES', 300, 4));
const WARM_UP = smokeOr(20, 2);
const POINTS = 200;
const load0 = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const test = await createTestDatabase();
const db = createPgDatabase({ url: test.url, schema: 'monitoring_data', max: 1 });
try {
  await migrate(db, 'monitoring_data', monitoringDataMigrations);
  for (let m = 0; m < 3; m++) {
    const from = new Date(Date.UTC(2026, m, 1)).toISOString();
    const to = new Date(Date.UTC(2026, m + 1, 1)).toISOString();
    await db.exec(
      `CREATE TABLE monitoring_data.data_records_p2026${String(m + 1).padStart(2, '0')} PARTITION OF monitoring_data.data_records FOR VALUES FROM ('${from}') TO ('${to}')`,
    );
  }
  // one connection: every statement runs on this backend
  const pid = (await db.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const scope = { tenantId: 'ten_bench', environment: 'live', projectId: 'prj_bench' };
  const points = Array.from({ length: POINTS }, (_, i) => ({ id: `pt_bench${String(i).padStart(12, '0')}` }));
  let epoch = 0;
  const write = () => {
    const records = [];
    for (let e = 0; e < 1000 / POINTS; e++, epoch++) {
      const ms = Date.UTC(2026, 0, 1) + epoch * 60_000;
      for (const point of points) {
        const v = reading();
        const dx = Math.round((v.x - REFERENCE.x) * 1e6) / 1e3,
          dy = Math.round((v.y - REFERENCE.y) * 1e6) / 1e3,
          dz = Math.round((v.z - REFERENCE.z) * 1e6) / 1e3;
        records.push({ index: records.length, point, ms, offset: 0, ...v, dx, dy, dz, status: Math.abs(dz) >= 10 ? 'warning' : 'normal' });
      }
    }
    return records;
  };
  const cpu = { without: 0, with: 0 };
  const wall = { without: 0, with: 0 };
  const run = async (variant, records) => {
    const c0 = procStat(pid).cpuS,
      t0 = performance.now();
    await db.transaction(async (tx) => {
      await insertRecords(tx, scope, records, newDataIds(records.length, Date.now()), { batchId: null, now: new Date().toISOString() });
      if (variant === 'with') await addToRollups(tx, records);
    });
    cpu[variant] += procStat(pid).cpuS - c0;
    wall[variant] += performance.now() - t0;
  };
  for (let i = 0; i < WARM_UP; i++) await run(i % 2 ? 'with' : 'without', write());
  cpu.without = cpu.with = wall.without = wall.with = 0;
  let foldCpu = 0;
  for (let i = 0; i < WRITES; i++) {
    await run('without', write());
    await run('with', write());
    if (i % 10 === 9) {
      const c0 = procStat(pid).cpuS,
        t0 = performance.now();
      await foldRollups(db);
      foldCpu += procStat(pid).cpuS - c0;
      wall.with += performance.now() - t0;
    }
  }
  const us = (s) => ((s / (WRITES * 1000)) * 1e6).toFixed(1);
  console.log(`Rollup cost per record (PostgreSQL backend CPU, ${WRITES} writes of 1,000 records per variant, interleaved):`);
  console.log(`- without rollups: ${us(cpu.without)} µs CPU, ${us(wall.without / 1000)} µs wall`);
  console.log(`- with rollups: ${us(cpu.with + foldCpu)} µs CPU (${us(cpu.with)} in the write, ${us(foldCpu)} folding), ${us(wall.with / 1000)} µs wall`);
  console.log(`- added: ${(((cpu.with + foldCpu) / cpu.without - 1) * 100).toFixed(0)} % of the write's PostgreSQL CPU`);
  console.log(
    `Load average: ${load0} at the start, ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end.`,
  );
} finally {
  await db.close();
  await test.drop();
}
