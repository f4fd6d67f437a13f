import { ROLLUP_SECONDS } from './rollups.js';

const HOUR = 3600;
const DAY = 86_400;
/** Bucket widths in hours a `buckets` request is rounded up to below a day (each divides a day). */
const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12];

/** Where buckets start (`origin` + k · `interval` s) over [from, to), instants in ms. */
export interface Grid {
  origin: number;
  interval: number;
}

/**
 * The grid of a `buckets` request: the width span / buckets, as before, when it is under an hour
 * (such a series reads raw rows anyway). From an hour on, the width is rounded up to 1, 2, 3, 4,
 * 6, 8 or 12 hours or a whole number of days and the buckets start on UTC hours (days), so each
 * bucket is whole rollup rows: at most `buckets` buckets (one more when the first starts before
 * `from`; it still counts records from `from` on only).
 */
export function gridForBuckets(from: number, to: number, buckets: number): Grid {
  const ideal = (to - from) / 1000 / buckets;
  if (ideal <= HOUR) return { origin: from, interval: Math.max(1, Math.ceil(ideal)) };
  const hours = HOUR_STEPS.find((h) => h * HOUR >= ideal);
  const interval = hours !== undefined ? hours * HOUR : Math.ceil(ideal / DAY) * DAY;
  const unit = interval % DAY === 0 ? DAY : HOUR;
  return { origin: Math.floor(from / (unit * 1000)) * unit * 1000, interval };
}

/** A time range [lo, hi) (ms) read from one level: rollup rows of `seconds`, or raw rows (0). */
export interface Piece {
  seconds: number;
  lo: number;
  hi: number;
}

/**
 * What to read for the buckets of `grid` over [from, to): each bucket (clipped to the range) is
 * cut into the whole days it holds, the whole hours around them, and raw rows at its edges, so the
 * aggregate of the pieces is exactly that of the bucket's raw rows. Adjacent pieces of a level
 * are merged: a grid on whole days or hours reads one range of rollup rows.
 * Before `rawBefore` the raw rows may be archived (archive.ts): there a raw piece becomes the
 * whole hours around it, each hour read once and counted in the bucket where it starts, so such a
 * series is exact to the hour (docs/operations.md).
 */
export function plan(grid: Grid, from: number, to: number, rawBefore: number | null = null): Piece[] {
  const levels = [...ROLLUP_SECONDS].sort((a, b) => b - a);
  const last = new Map<number, Piece>();
  const pieces: Piece[] = [];
  const push = (seconds: number, lo: number, hi: number) => {
    const prev = last.get(seconds);
    if (prev && lo < prev.hi) lo = prev.hi;
    if (lo >= hi) return;
    if (prev && prev.hi === lo) prev.hi = hi;
    else {
      const p = { seconds, lo, hi };
      last.set(seconds, p);
      pieces.push(p);
    }
  };
  const split = (s: number, e: number, i: number): void => {
    if (s >= e) return;
    if (i === levels.length) {
      if (rawBefore === null || s >= rawBefore) return push(0, s, e);
      const hour = HOUR * 1000;
      push(HOUR, Math.floor(s / hour) * hour, Math.ceil(Math.min(e, rawBefore) / hour) * hour);
      if (e > rawBefore) push(0, rawBefore, e);
      return;
    }
    const unit = levels[i]! * 1000;
    const a = Math.ceil(s / unit) * unit;
    const z = Math.floor(e / unit) * unit;
    if (a >= z) return split(s, e, i + 1);
    split(s, a, i + 1);
    push(levels[i]!, a, z);
    split(z, e, i + 1);
  };
  const step = grid.interval * 1000;
  for (let b = grid.origin; b < to; b += step) split(Math.max(b, from), Math.min(b + step, to), 0);
  return pieces;
}
