import { IMPORT_TIMESTAMP_FORMATS } from '@mp/contracts';
/**
 * Timestamps of logger files (docs/imports.md#timestamps): a cell is read with the profile's
 * timestamp_format and, when it carries no UTC offset, as a wall time in the profile's IANA
 * time_zone. The rules for wall times a daylight-saving change makes ambiguous or impossible are
 * here, in one place:
 *
 * - a wall time that occurs twice (clocks go back) is the earlier instant, unless the file's
 *   previous row is already at or after it: then the later one, so a logger that kept writing
 *   through the repeated hour stores both hours in order;
 * - a wall time that does not exist (clocks go forward) is refused: the reading is an error naming
 *   the timestamp column (code 400004).
 */

/** The formats a profile may name (besides `iso`, the default): the shared vocabulary's. */
export const TIMESTAMP_FORMATS = IMPORT_TIMESTAMP_FORMATS;

export interface WallTime {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
  /** minutes east of UTC when the cell carried an offset */
  offset?: number;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

function compile(format: string): RegExp {
  let src = '';
  for (let i = 0; i < format.length;) {
    const rest = format.slice(i);
    const token = ['YYYY', 'MM', 'DD', 'HH', 'mm', 'ss'].find((t) => rest.startsWith(t));
    if (token) {
      src += token === 'YYYY' ? '(?<YYYY>\\d{4})' : `(?<${token}>\\d{1,2})`;
      i += token.length;
    } else {
      src += format[i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i++;
    }
  }
  // fractions of a second after the seconds, as loggers write them (12:00:00.5)
  if (format.endsWith('ss')) src += '(?:[.,](?<frac>\\d{1,9}))?';
  return new RegExp(`^${src}$`);
}

const fraction = (f: string | undefined): number => (f ? Math.round(Number(`0.${f}`) * 1000) : 0);

/** A parser of one format's cells: the wall time (and offset when given), or null when the cell does not match. */
export function wallTimeParser(format: string | null | undefined): (cell: string) => WallTime | null {
  if (!format || format === 'iso') {
    return (cell) => {
      const m = ISO.exec(cell);
      if (!m) return null;
      let offset: number | undefined;
      if (m[8]) {
        if (m[8].toUpperCase() === 'Z') offset = 0;
        else {
          const sign = m[8][0] === '-' ? -1 : 1;
          const digits = m[8].slice(1).replace(':', '');
          offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
        }
      }
      return { y: +m[1]!, mo: +m[2]!, d: +m[3]!, h: +m[4]!, mi: +m[5]!, s: m[6] ? +m[6] : 0, ms: fraction(m[7]), ...(offset !== undefined ? { offset } : {}) };
    };
  }
  const re = compile(format);
  return (cell) => {
    const g = re.exec(cell)?.groups;
    if (!g) return null;
    return { y: +g.YYYY!, mo: +g.MM!, d: +g.DD!, h: +g.HH!, mi: +g.mm!, s: g.ss ? +g.ss : 0, ms: fraction(g.frac) };
  };
}

/** True when the fields name a real calendar date and clock time (no 31 February, no 25:00). */
export function validWallTime(w: WallTime): boolean {
  if (w.mo < 1 || w.mo > 12 || w.d < 1 || w.h > 23 || w.mi > 59 || w.s > 59) return false;
  const probe = new Date(Date.UTC(w.y, w.mo - 1, w.d));
  return probe.getUTCDate() === w.d && probe.getUTCMonth() === w.mo - 1;
}

/** True when `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export type Resolved = { ms: number; offset: number } | { error: 'nonexistent' | 'invalid' };

/**
 * Wall times → instants in one time zone, fast: the zone's offsets are looked up once per wall
 * hour (a logger file has thousands of rows per hour), and exactly only in hours that hold a change.
 */
export class ZoneClock {
  private readonly fmt: Intl.DateTimeFormat;
  private readonly hours = new Map<number, number[] | null>();

  constructor(readonly zone: string) {
    this.fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** Minutes east of UTC in this zone at the instant `utcMs`. */
  offsetAt(utcMs: number): number {
    const parts = this.fmt.formatToParts(new Date(Math.floor(utcMs / 1000) * 1000));
    const v: Record<string, number> = {};
    for (const p of parts) if (p.type !== 'literal') v[p.type] = Number(p.value);
    const wall = Date.UTC(v.year!, v.month! - 1, v.day!, v.hour!, v.minute!, v.second!);
    return Math.round((wall - Math.floor(utcMs / 1000) * 1000) / 60_000);
  }

  /** The instants (UTC ms) whose wall time here is `wallMs` (a wall time written as if UTC): 0, 1 or 2 of them. */
  private candidates(wallMs: number): number[] {
    const around = new Set([this.offsetAt(wallMs - 86_400_000), this.offsetAt(wallMs + 86_400_000), this.offsetAt(wallMs)]);
    const out: number[] = [];
    for (const o of around) {
      const utc = wallMs - o * 60_000;
      if (this.offsetAt(utc) === o) out.push(utc);
    }
    return out.sort((a, b) => a - b);
  }

  /**
   * The instant of a wall time (docs/imports.md#time-zones-and-daylight-saving): ambiguous →
   * the earlier instant unless `previousMs` (the file's previous row) is at or after it; a wall
   * time that does not exist → `nonexistent`.
   */
  resolve(w: WallTime, previousMs: number | null): Resolved {
    if (!validWallTime(w)) return { error: 'invalid' };
    const wallMs = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s, w.ms);
    if (w.offset !== undefined) return { ms: wallMs - w.offset * 60_000, offset: w.offset };
    const hour = Math.floor(wallMs / 3_600_000);
    let simple = this.hours.get(hour);
    if (simple === undefined) {
      // One offset for the hour's first and last second, each with one instant: no change inside.
      const a = this.candidates(hour * 3_600_000);
      const b = this.candidates(hour * 3_600_000 + 3_599_000);
      const oa = a.length === 1 ? Math.round((hour * 3_600_000 - a[0]!) / 60_000) : null;
      const ob = b.length === 1 ? Math.round((hour * 3_600_000 + 3_599_000 - b[0]!) / 60_000) : null;
      simple = oa !== null && oa === ob ? [oa] : null;
      if (this.hours.size > 100_000) this.hours.clear();
      this.hours.set(hour, simple);
    }
    if (simple) return { ms: wallMs - simple[0]! * 60_000, offset: simple[0]! };
    const found = this.candidates(wallMs);
    if (found.length === 0) return { error: 'nonexistent' };
    let ms = found[0]!;
    if (found.length > 1 && previousMs !== null && previousMs >= ms) ms = found[found.length - 1]!;
    return { ms, offset: Math.round((wallMs - ms) / 60_000) };
  }
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** ISO 8601 with the offset (`2026-03-29T03:10:00+02:00`), milliseconds only when not zero. */
export function isoWithOffset(ms: number, offset: number): string {
  const d = new Date(ms + offset * 60_000);
  const frac = d.getUTCMilliseconds() ? `.${pad(d.getUTCMilliseconds(), 3)}` : '';
  const sign = offset < 0 ? '-' : '+';
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac}${sign}${pad(Math.trunc(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}
