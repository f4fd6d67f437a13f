// What the rollups per instrument channel (ADR 0118) add to an instrument write, measured as
// rollups-cost.mjs measures the geodetic rollups: the CPU time of the PostgreSQL backend (from
// /proc) for 1,000-record piezometer writes (200 points × 5 readings a minute apart, three
// channels each), alternately with the geodetic rollups only (the record's channels hidden from
// addToRollups) and with the channel rollups too, plus folding every 10 writes.
// One command: `node bench/ingest/channel-rollups-cost.mjs` (after a build). BENCH_WRITES=200 per
// variant (BENCH_SMOKE=1: a handful).
import { createPgDatabase, migrate } from '@mp/db';
import { monitoringDataMigrations } from '@mp/monitoring-data';
import { createTestDatabase } from '@mp/testing';
import { loadavg } from 'node:os';
import { procStat } from '../process-stats.mjs';
import { insertRecords } from '../../services/monitoring-data/dist/store-records.js';
import { addToRollups, foldRollups } from '../../services/monitoring-data/dist/rollups.js';
import { newDataIds } from '../../services/monitoring-data/dist/ids.js';
import { setting, smokeOr } from '../support/smoke.mjs';

const WRITES = Number(setting('BENCH_WRITES', 200, 4));
const WARM_UP = smokeOr(10, 2);
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
  const pid = (await db.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const scope = { tenantId: 'ten_bench', environment: 'live', projectId: 'prj_bench' };
  const points = Array.from({ length: POINTS }, (_, i) => ({ id: `pt_bench${String(i).padStart(12, '0')}` }));
  let epoch = 0;
  // deterministic values (no Math.random: two runs read the same stream)
  let seed = 11;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const write = () => {
    const records = [];
    for (let e = 0; e < 1000 / POINTS; e++, epoch++) {
      const ms = Date.UTC(2026, 0, 1) + epoch * 60_000;
      for (const point of points) {
        const channels = {
          pore_pressure: Math.round((150 + next() * 50) * 1000) / 1000,
          frequency: Math.round((2400 + next() * 100) * 100) / 100,
          temperature: Math.round((10 + next()) * 100) / 100,
        };
        records.push({
          index: records.length,
          point,
          ms,
          offset: 0,
          x: null,
          y: null,
          z: null,
          dx: null,
          dy: null,
          dz: null,
          channels,
          status: 'normal',
          channel: null,
        });
      }
    }
    return records;
  };
  const cpu = { geodetic: 0, channels: 0 };
  const wall = { geodetic: 0, channels: 0 };
  const run = async (variant, records) => {
    const c0 = procStat(pid).cpuS,
      t0 = performance.now();
    await db.transaction(async (tx) => {
      await insertRecords(tx, scope, records, newDataIds(records.length, Date.now()), { batchId: null, now: new Date().toISOString() });
      await addToRollups(tx, variant === 'channels' ? records : records.map((r) => ({ ...r, channels: null })));
    });
    cpu[variant] += procStat(pid).cpuS - c0;
    wall[variant] += performance.now() - t0;
  };
  for (let i = 0; i < WARM_UP; i++) await run(i % 2 ? 'channels' : 'geodetic', write());
  cpu.geodetic = cpu.channels = wall.geodetic = wall.channels = 0;
  let foldCpu = 0;
  for (let i = 0; i < WRITES; i++) {
    await run('geodetic', write());
    await run('channels', write());
    if (i % 10 === 9) {
      const c0 = procStat(pid).cpuS;
      await foldRollups(db);
      foldCpu += procStat(pid).cpuS - c0;
    }
  }
  const us = (s) => ((s / (WRITES * 1000)) * 1e6).toFixed(1);
  console.log(`Channel rollup cost per instrument record (PostgreSQL backend CPU, ${WRITES} writes of 1,000 records per variant, interleaved):`);
  console.log(`- insert and geodetic rollups only: ${us(cpu.geodetic)} µs CPU, ${us(wall.geodetic / 1000)} µs wall`);
  console.log(`- with the channel rollups: ${us(cpu.channels)} µs CPU, ${us(wall.channels / 1000)} µs wall; folding both kinds: ${us(foldCpu)} µs CPU`);
  console.log(`- added in the write: ${((cpu.channels / cpu.geodetic - 1) * 100).toFixed(0)} % of its PostgreSQL CPU`);
  console.log(
    `Load average: ${load0} at the start, ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end.`,
  );
} finally {
  await db.close();
  await test.drop();
}
