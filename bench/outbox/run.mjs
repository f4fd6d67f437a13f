// Outbox payload storage benchmark (ADR 0013). One command: `npm run bench:outbox`.
//
// How much PostgreSQL CPU one large event costs in the outbox, for each way of storing its data:
// a data.created of 1,000 records (~290 KB of JSON) inserted by 4 connections, then claimed and
// marked by the relay's two statements (SELECT … FOR UPDATE SKIP LOCKED, UPDATE … = ANY), 50 at a
// time. Variants: json stored uncompressed (the outbox until 2026-11-23: checked on insert,
// converted on read), text stored uncompressed (STORAGE EXTERNAL), text compressed with pglz
// (PostgreSQL's default) and with lz4 (what the outbox uses). CPU is read from /proc for all PostgreSQL processes (this machine's server).
//
// Options (environment): BENCH_EVENTS=300 (per variant and round)  BENCH_ROUNDS=2
// BENCH_SMOKE=1: 8 events, one round (bench/support/smoke.mjs); the settings above still win
import { cpus } from 'node:os';
import pg from 'pg';
import { createTestDatabase } from '@mp/testing';
import { postgresStat } from '../process-stats.mjs';
import { setting } from '../support/smoke.mjs';

const EVENTS = Number(setting('BENCH_EVENTS', 300, 8));
const ROUNDS = Number(setting('BENCH_ROUNDS', 2, 1));
const VARIANTS = {
  'json, uncompressed': { type: 'json', after: 'ALTER COLUMN data SET STORAGE EXTERNAL' },
  'text, uncompressed': { type: 'text', after: 'ALTER COLUMN data SET STORAGE EXTERNAL' },
  'text, pglz': { type: 'text', after: 'ALTER COLUMN data SET COMPRESSION pglz' },
  'text, lz4': { type: 'text', after: 'ALTER COLUMN data SET COMPRESSION lz4' },
};

const postgresCpuS = () => postgresStat().cpuS;

// A data.created payload as monitoring-data writes it: 1,000 records of 200 points.
const record = (i) => ({
  data_id: `dat_${String(i).padStart(20, '0')}`,
  point_id: `pt_${String(i % 200).padStart(20, '0')}`,
  point_name: `Benchmark point ${i % 200}`,
  sensor_type: 'total_station',
  measured_at: `2026-03-01T08:${String(Math.floor(i / 200)).padStart(2, '0')}:00.000+08:00`,
  values: { x: 3512345.101 + (i % 97) / 1000, y: 512345.602, z: 45.301, dx: ((i * 7) % 150) / 10, dy: 2.5, dz: ((i * 3) % 80) / 10 },
  status: 'normal',
  quality_flag: 'valid',
});
const payload = JSON.stringify({
  project_id: 'prj_00000000000000000001',
  project_name: 'Benchmark tunnel',
  records: Array.from({ length: 1000 }, (_, i) => record(i)),
  total_count: 1000,
  abnormal_count: 0,
});

const db = await createTestDatabase();
const pool = new pg.Pool({ connectionString: db.url, max: 4 });
// pool.end() resolves before its connections have closed, and the database is then dropped WITH
// (FORCE), which terminates them: the error of an idle connection must not end the run.
pool.on('error', () => undefined);
try {
  const table = (name) => `o_${name.replace(/[^a-z0-9]+/g, '_')}`;
  for (const [name, v] of Object.entries(VARIANTS)) {
    await pool.query(
      `CREATE TABLE ${table(name)} (seq bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, data ${v.type} NOT NULL, dispatched_at timestamptz)`,
    );
    await pool.query(`CREATE INDEX ON ${table(name)} (seq) WHERE dispatched_at IS NULL`);
    if (v.after) await pool.query(`ALTER TABLE ${table(name)} ${v.after}`);
  }
  console.log(
    `Outbox payload storage — ${new Date().toISOString()} — ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}, ${(await pool.query('SHOW server_version')).rows[0].server_version}`,
  );
  console.log(`payload ${payload.length} bytes (1,000 records), ${EVENTS} events per variant and round, ${ROUNDS} rounds`);
  let n = 0;
  const results = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, { insert: [], read: [], bytes: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(VARIANTS)) {
      const t = table(name);
      const c0 = postgresCpuS();
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let i = 0; i < EVENTS / 4; i++)
            await pool.query({ name: `insert_${t}`, text: `INSERT INTO ${t} (event_id, data) VALUES ($1, $2)`, values: [`evt_${n++}`, payload] });
        }),
      );
      const c1 = postgresCpuS();
      const client = await pool.connect();
      try {
        for (;;) {
          await client.query('BEGIN');
          const { rows } = await client.query(
            `SELECT seq, data::text AS data FROM ${t} WHERE dispatched_at IS NULL ORDER BY seq LIMIT 50 FOR UPDATE SKIP LOCKED`,
          );
          if (rows.length === 0) {
            await client.query('COMMIT');
            break;
          }
          if (rows.some((r) => r.data.length !== payload.length)) throw new Error('payload changed on the way');
          await client.query(`UPDATE ${t} SET dispatched_at = now() WHERE seq = ANY($1::bigint[])`, [rows.map((r) => r.seq)]);
          await client.query('COMMIT');
        }
      } finally {
        client.release();
      }
      const c2 = postgresCpuS();
      results[name].insert.push(((c1 - c0) / EVENTS) * 1000);
      results[name].read.push(((c2 - c1) / EVENTS) * 1000);
    }
  }
  for (const name of Object.keys(VARIANTS)) {
    const { rows } = await pool.query(`SELECT avg(pg_column_size(data))::int AS bytes FROM ${table(name)}`);
    const r = results[name];
    const range = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
    console.log(
      `${name.padEnd(20)} insert ${range(r.insert)} ms, relay claim + mark ${range(r.read)} ms of PostgreSQL CPU per event; stored ${rows[0].bytes} bytes per payload`,
    );
  }
} finally {
  await pool.end();
  await db.drop();
}
