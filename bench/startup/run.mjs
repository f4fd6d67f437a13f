// Cold and warm start of the embedded default (`npm start` without infrastructure settings).
// Cold: empty data folder (databases created, migrations run, TLS certificate and administrator
// made). Warm: the same folder again. Baseline in the same run: a bare Node HTTPS server's start.
// Usage: npm run build && node bench/startup/run.mjs [runs]   (BENCH_IDLE_SECONDS, default 10)
// BENCH_SMOKE=1: one run, one second idle, unless given.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setting, smokeOr } from '../support/smoke.mjs';

// BENCH_ROOT: start another checkout's build instead (an earlier commit, for a comparison in one run).
const root = process.env.BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runs = Number(process.argv[2] ?? smokeOr(3, 1));
const idleSeconds = Number(setting('BENCH_IDLE_SECONDS', 10, 1));

function timeStart(command, args, env, ready) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const fullEnv = { ...process.env, ...env };
    // The embedded default: no infrastructure settings at all.
    for (const k of ['MP_DATABASE_URL', 'MP_NATS_URL', 'MP_REDIS_URL']) delete fullEnv[k];
    const child = spawn(command, args, { cwd: root, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let rss = 0;
    const onData = (d) => {
      out += d;
      if (ready.test(out) && !rss) {
        const ms = performance.now() - started;
        rss = 1;
        // Resident memory of the running platform, read from /proc: once ready, and after it has
        // been idle for a while (what a developer's machine carries while the platform runs).
        import('node:fs').then(({ readFileSync }) => {
          const read = () => {
            try {
              return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
            } catch {
              return 0;
            }
          };
          rss = read();
          // CPU time the start took (this process and the children it waited for, e.g. initdb),
          // which other work on the machine does not inflate as it does the wall-clock time.
          let cpuS = 0;
          try {
            const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
            cpuS = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / 100;
          } catch {
            cpuS = 0;
          }
          setTimeout(() => {
            const idleRssMb = read();
            child.kill('SIGINT');
            child.once('exit', () => resolve({ ms, rssMb: rss, idleRssMb, cpuS }));
          }, idleSeconds * 1000);
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      if (!rss) reject(new Error(`exited ${code} before ready:\n${out}`));
    });
  });
}

const baselineScript = `
import https from 'node:https';
const s = https.createServer({}, () => {});
s.listen(0, () => { console.log('ready'); });
process.on('SIGINT', () => process.exit(0));
`;

const rows = [];
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'mp-bench-start-'));
  const env = { MP_DATA_DIR: dir, MP_HTTPS_PORT: '0', MP_SANDBOX_HTTPS_PORT: '0', MP_BIND_HOST: '127.0.0.1', MP_LOG_LEVEL: 'warn' };
  const cold = await timeStart('node', ['scripts/start.mjs'], env, /Press Ctrl-C/);
  const warm = await timeStart('node', ['scripts/start.mjs'], env, /Press Ctrl-C/);
  const base = await timeStart('node', ['--input-type=module', '-e', baselineScript], {}, /ready/);
  rows.push({ cold, warm, base });
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}; runs: ${runs}`);
console.log(`cold start (empty data folder): median ${fmt(median(rows.map((r) => r.cold.ms)))}  (runs: ${rows.map((r) => fmt(r.cold.ms)).join(', ')})`);
console.log(`warm start (existing data):     median ${fmt(median(rows.map((r) => r.warm.ms)))}  (runs: ${rows.map((r) => fmt(r.warm.ms)).join(', ')})`);
console.log(
  `CPU time to ready: cold ${median(rows.map((r) => r.cold.cpuS)).toFixed(2)} s (runs: ${rows.map((r) => r.cold.cpuS.toFixed(2)).join(', ')}), warm ${median(rows.map((r) => r.warm.cpuS)).toFixed(2)} s (runs: ${rows.map((r) => r.warm.cpuS.toFixed(2)).join(', ')})`,
);
console.log(`baseline: bare node HTTPS server start: median ${fmt(median(rows.map((r) => r.base.ms)))}`);
console.log(
  `RSS after start: cold ${median(rows.map((r) => r.cold.rssMb)).toFixed(0)} MiB, warm ${median(rows.map((r) => r.warm.rssMb)).toFixed(0)} MiB, baseline ${median(rows.map((r) => r.base.rssMb)).toFixed(0)} MiB`,
);
console.log(
  `RSS after ${idleSeconds} s idle: cold ${median(rows.map((r) => r.cold.idleRssMb)).toFixed(0)} MiB, warm ${median(rows.map((r) => r.warm.idleRssMb)).toFixed(0)} MiB, baseline ${median(rows.map((r) => r.base.idleRssMb)).toFixed(0)} MiB`,
);
console.log(`targets: cold < 10 s, warm < 3 s, idle RSS < 350 MiB`);
