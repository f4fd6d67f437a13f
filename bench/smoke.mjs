// Runs every benchmark at its smoke sizes (BENCH_SMOKE=1, bench/support/smoke.mjs), one after
// the other, each as a child process with a time bound, so that a change which breaks a bench
// fails CI. It asserts nothing about the figures: a bench passes when it exits 0 within its bound.
// Needs a build (it calls node directly, not the npm scripts that rebuild).
//
//   npm run bench:smoke [-- <name> …]      e.g. `npm run bench:smoke -- ingest/run gateway/grpc-call`
//   BENCH_SMOKE_TIMEOUT_S=<seconds> overrides every bench's bound; BENCH_SMOKE_VERBOSE=1 shows every
//   bench's output as it runs (otherwise only a failed bench's output is shown).
//
// Every .mjs file under bench/ must be listed here, as a bench or as a module the benches use:
// a new bench that is not listed fails the run, so none is left out of CI by accident.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The benches (entry points), in the order they run, with their time bound in seconds. */
const BENCHES = [
  { name: 'openapi/run', bound: 60 },
  { name: 'gateway/caller-context', bound: 60 },
  { name: 'gateway/grpc-call', bound: 60 },
  { name: 'ingest/micro', bound: 60 },
  { name: 'ingest/rollups-cost', bound: 90 },
  { name: 'ingest/channel-rollups-cost', bound: 90 },
  { name: 'outbox/run', bound: 60 },
  { name: 'outbox/relay', bound: 60 },
  { name: 'startup/run', bound: 120 },
  { name: 'gateway/run', bound: 120 },
  { name: 'gateway/auth-cache', bound: 120 },
  { name: 'ingest/run', bound: 150 },
  { name: 'tracing/run', bound: 240 },
  { name: 'webhooks/run', bound: 150 },
  { name: 'series/run', bound: 120 },
  { name: 'reports/run', bound: 150 },
  { name: 'import/run', bound: 150 },
  { name: 'recompute/run', bound: 150 },
];
/** Files under bench/ that are not benches: modules and child processes the benches use. */
const MODULES = new Set([
  'smoke',
  'process-stats',
  'support/platform',
  'support/smoke',
  'gateway/bare',
  'ingest/platform',
  'ingest/readings',
  'webhooks/lean-grpc',
  'webhooks/receiver',
]);

const found = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) walk(join(dir, entry.name));
    else if (entry.name.endsWith('.mjs')) found.push(relative(here, join(dir, entry.name)).replace(/\.mjs$/, ''));
  }
};
walk(here);
const unlisted = found.filter((f) => !MODULES.has(f) && !BENCHES.some((b) => b.name === f));
if (unlisted.length) {
  console.error(`bench/smoke.mjs: not listed as a bench or a module: ${unlisted.map((f) => `bench/${f}.mjs`).join(', ')}`);
  process.exit(2);
}
const missing = BENCHES.filter((b) => !found.includes(b.name));
if (missing.length) {
  console.error(`bench/smoke.mjs: listed but not found: ${missing.map((b) => `bench/${b.name}.mjs`).join(', ')}`);
  process.exit(2);
}

const wanted = process.argv.slice(2);
for (const w of wanted)
  if (!BENCHES.some((b) => b.name === w)) {
    console.error(`bench/smoke.mjs: no bench ${w} (benches: ${BENCHES.map((b) => b.name).join(', ')})`);
    process.exit(2);
  }
const selected = wanted.length ? BENCHES.filter((b) => wanted.includes(b.name)) : BENCHES;
const verbose = process.env.BENCH_SMOKE_VERBOSE === '1';
const boundOverride = process.env.BENCH_SMOKE_TIMEOUT_S ? Number(process.env.BENCH_SMOKE_TIMEOUT_S) : undefined;

/** Runs one bench; resolves with its exit code (or signal), whether it ran out of time, its seconds and output. */
function run(bench) {
  const bound = boundOverride ?? bench.bound;
  return new Promise((resolve) => {
    const started = performance.now();
    // A process group of its own, so that a bench out of time is ended with the platform
    // processes it started.
    const child = spawn(process.execPath, [join(here, `${bench.name}.mjs`)], {
      cwd: join(here, '..'),
      env: { ...process.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const keep = (d) => {
      if (verbose) process.stdout.write(d);
      // the end of the output is what tells why a bench failed
      output = (output + d).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let closed = false;
    child.once('close', () => (closed = true));
    let timedOut = false;
    let killer;
    const groupAlive = () => {
      try {
        process.kill(-child.pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const signalGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup('SIGTERM');
      killer = setTimeout(() => signalGroup('SIGKILL'), 5000);
    }, bound * 1000);
    child.once('exit', async (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      const seconds = (performance.now() - started) / 1000;
      // A bench stops what it started; a process of its group still there a few seconds after it
      // exited was left behind (it would take the CPU and ports of the benches after it).
      for (let i = 0; i < 30 && (groupAlive() || !closed); i++) await new Promise((r) => setTimeout(r, 100));
      const leftBehind = groupAlive() && !timedOut;
      signalGroup('SIGKILL');
      resolve({ code: code ?? signal, timedOut, leftBehind, bound, seconds, output });
    });
  });
}

const t0 = performance.now();
const failed = [];
for (const bench of selected) {
  const r = await run(bench);
  const ok = r.code === 0 && !r.timedOut && !r.leftBehind;
  console.log(
    `${ok ? 'ok    ' : 'FAILED'} ${bench.name.padEnd(24)} exit ${String(r.code).padEnd(7)} ${r.seconds.toFixed(1).padStart(6)} s${r.timedOut ? `  (out of time: bound ${r.bound} s)` : ''}${r.leftBehind ? '  (left processes running)' : ''}`,
  );
  if (!ok) {
    failed.push(bench.name);
    if (!verbose) process.stdout.write(`--- output of bench/${bench.name}.mjs (its end) ---\n${r.output}\n--- end of output ---\n`);
  }
}
console.log(`${selected.length - failed.length} of ${selected.length} benches ran in smoke mode in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
if (failed.length) {
  console.error(`failed, out of time or left processes running: ${failed.join(', ')}`);
  process.exitCode = 1;
}
