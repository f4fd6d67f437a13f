// The benchmarks' smoke mode: BENCH_SMOKE=1 runs every bench at tiny sizes (a few writes, a
// second per phase, one run), so that it finishes in seconds while still going through its whole
// path (platform started, requests sent, figures printed). CI runs every bench this way
// (bench/smoke.mjs) so that a change which breaks a bench fails there; the figures of a smoke
// run mean nothing. This is the one place the switch is read.

/** Whether the benches run at their smoke sizes. */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** `full` normally, `smoke` under BENCH_SMOKE=1 (for sizes without a setting of their own, or command-line defaults). */
export const smokeOr = (full, smoke) => (SMOKE ? smoke : full);

/**
 * A size from the environment: the variable `name` when it is set (an explicit setting wins in
 * smoke mode too), else `full`, or `smoke` under BENCH_SMOKE=1. Returns what the variable holds
 * (a string) or the default as given; callers convert.
 */
export const setting = (name, full, smoke) => process.env[name] ?? smokeOr(full, smoke);
