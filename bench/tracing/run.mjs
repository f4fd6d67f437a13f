// Cost of tracing (ADR 0035): `node bench/tracing/run.mjs` (after a build).
//
// Runs the ingestion benchmark (bench/ingest, split topology: gateway and monitoring-data as
// processes of their own, as deployed) alternately with tracing off (no OTEL_* variables: the
// baseline of the same session) and on with 10 % sampling (parentbased_traceidratio 0.1, OTLP
// http/protobuf to a local receiver that counts what it is sent), RUNS times each, and prints the
// records/s of every run and the difference of the medians.
//
// Options (environment): BENCH_TRACING_RUNS=2  BENCH_TRACING_RATIO=0.1  and the ingest options it
// passes on (defaults here: BENCH_LEVELS=16 BENCH_REQUESTS=300 BENCH_SERIES=0; abnormal readings
// as bench/ingest's default, so the alarm rules run as on a site).
// BENCH_SMOKE=1: one run each way, every request sampled, bench/ingest at one level of 4 writes
// (bench/support/smoke.mjs).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE, setting } from '../support/smoke.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const RUNS = Number(setting('BENCH_TRACING_RUNS', 2, 1));
// every request sampled in smoke mode, so that its few requests surely export spans
const RATIO = setting('BENCH_TRACING_RATIO', '0.1', '1');

// The OTLP receiver: answers every export at once and counts requests and bytes.
const received = { requests: 0, bytes: 0 };
const sink = http.createServer((req, res) => {
  req.on('data', (d) => (received.bytes += d.length));
  req.on('end', () => {
    received.requests++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${sink.address().port}`;

function ingest(tracing) {
  // in smoke mode one small level: bench/ingest's own smoke run covers the write path's concurrency
  const sizes = SMOKE ? { BENCH_LEVELS: '4', BENCH_REQUESTS: '4', BENCH_WARM_UP: '4' } : { BENCH_LEVELS: '16', BENCH_REQUESTS: '300' };
  const env = { ...sizes, BENCH_SERIES: '0', ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('OTEL_')) delete env[k];
  if (tracing) Object.assign(env, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: RATIO });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, '../ingest/run.mjs')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench/ingest exited ${code}:\n${out}`));
      // `concurrency N: R records/s; CPU µs per record: <process> <µs>, …`
      const levels = [...out.matchAll(/^concurrency (\d+): ([\d,]+) records\/s; CPU µs per record: (.*)$/gm)].map((m) => ({
        level: Number(m[1]),
        rate: Number(m[2].replaceAll(',', '')),
        cpuUs: [...m[3].matchAll(/ ([\d.]+)(?:,|$)/g)].reduce((sum, x) => sum + Number(x[1]), 0),
      }));
      const pgUs = /CPU per record: platform [\d.]+ µs \+ PostgreSQL ([\d.]+) µs/.exec(out);
      resolve({ levels, pgUs: pgUs ? Number(pgUs[1]) : NaN });
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (r) => Math.round(r).toLocaleString('en-US');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const loadBefore = load();
const results = { off: [], on: [] };
const cpu = { off: [], on: [] };
for (let i = 0; i < RUNS; i++) {
  for (const mode of ['off', 'on']) {
    const before = received.requests;
    // one retry: on a shared machine a run can fail for reasons of others (connections terminated)
    const run = await ingest(mode === 'on').catch((err) => {
      console.error(`run ${i + 1}, tracing ${mode} failed once, again: ${err.message.split('\n')[0]}`);
      return ingest(mode === 'on');
    });
    const best = run.levels.reduce((a, b) => (b.rate > a.rate ? b : a));
    // tracing on must have sent spans to the receiver: otherwise the run measured tracing off twice
    if (mode === 'on' && received.requests === before) throw new Error(`run ${i + 1}: tracing on, but no OTLP export reached the receiver`);
    results[mode].push(best.rate);
    cpu[mode].push(best.cpuUs);
    console.log(
      `run ${i + 1}, tracing ${mode}: ${fmt(best.rate)} records/s, platform CPU ${best.cpuUs.toFixed(1)} µs per record (PostgreSQL ${run.pgUs} µs)${mode === 'on' ? `, ${received.requests - before} OTLP exports` : ''}`,
    );
  }
}
sink.close();
const off = median(results.off);
const on = median(results.on);
console.log('');
console.log(`## Tracing cost — ${new Date().toISOString().slice(0, 10)}`);
console.log('');
console.log(`Machine: ${cpus().length} × ${cpus()[0].model}; load average before ${loadBefore}, after ${load()} (shared with other work).`);
console.log('');
console.log('| tracing | runs (records/s) | median records/s | platform CPU µs per record (runs) | median µs |');
console.log('|---|---|---|---|---|');
for (const [mode, label] of [
  ['off', 'off (baseline)'],
  ['on', `on, ${Number(RATIO) * 100} % sampled`],
]) {
  console.log(
    `| ${label} | ${results[mode].map(fmt).join(', ')} | ${fmt(median(results[mode]))} | ${cpu[mode].map((c) => c.toFixed(1)).join(', ')} | ${median(cpu[mode]).toFixed(1)} |`,
  );
}
console.log('');
console.log(
  `Difference: ${(((on - off) / off) * 100).toFixed(1)} % of ingestion throughput, ${(((median(cpu.on) - median(cpu.off)) / median(cpu.off)) * 100).toFixed(1)} % platform CPU per record (${received.requests} OTLP exports, ${(received.bytes / 1e6).toFixed(1)} MB in all).`,
);
