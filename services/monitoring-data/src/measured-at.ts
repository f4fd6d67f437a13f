/**
 * measured_at is ISO 8601 with a UTC offset (docs/rules.md#timestamps: it keeps the offset it was sent with).
 * It is stored as an instant plus the offset in minutes; resolution is one millisecond.
 */
const PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

export interface MeasuredAt {
  /** Milliseconds since the epoch. */
  ms: number;
  /** Minutes east of UTC. */
  offset: number;
}

/** Parses measured_at; null when it is not a real calendar time with an offset. */
export function parseMeasuredAt(text: string): MeasuredAt | null {
  const m = PATTERN.exec(text);
  if (!m) return null;
  const [, ys, mos, ds, hs, mis, ss, frac, off] = m;
  const y = +ys!,
    mo = +mos!,
    d = +ds!,
    h = +hs!,
    mi = +mis!,
    s = +ss!;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  if (d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return null;
  let offset = 0;
  if (off !== 'Z') {
    const oh = +off!.slice(1, 3),
      om = +off!.slice(4, 6);
    if (oh > 14 || om > 59) return null;
    offset = (off![0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = frac ? Math.floor(+`0.${frac}` * 1000 + 1e-7) : 0;
  return { ms: Date.UTC(y, mo - 1, d, h, mi, s, ms) - offset * 60_000, offset };
}

/** The instant in its original offset: `2026-03-01T08:00:00+08:00` (milliseconds only when not zero). */
export function formatMeasuredAt(ms: number, offset: number): string {
  const local = new Date(ms + offset * 60_000).toISOString();
  const base = local.endsWith('.000Z') ? local.slice(0, 19) : local.slice(0, 23);
  if (offset === 0) return `${base}Z`;
  const a = Math.abs(offset);
  return `${base}${offset < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** The calendar date (YYYY-MM-DD) of the instant at its own offset: the date on site. */
export function localDate(ms: number, offset: number): string {
  return new Date(ms + offset * 60_000).toISOString().slice(0, 10);
}
