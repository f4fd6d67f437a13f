/** The periods of scheduled reports: calendar weeks (Monday 00:00) and months, in a time zone. */

export type Frequency = 'weekly' | 'monthly';
export const FREQUENCIES: readonly Frequency[] = ['weekly', 'monthly'];

interface LocalDate {
  year: number;
  month: number;
  day: number;
  /** 0 Sunday … 6 Saturday */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsIn(ms: number, timeZone: string): Record<string, string> {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
}

/** How far the zone's clock is ahead of UTC at `ms`. */
function offsetAt(ms: number, timeZone: string): number {
  const p = partsIn(ms, timeZone);
  return Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!) - Math.floor(ms / 1000) * 1000;
}

function localDate(ms: number, timeZone: string): LocalDate {
  const p = partsIn(ms, timeZone);
  const year = +p.year!,
    month = +p.month!,
    day = +p.day!;
  return { year, month, day, weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay() };
}

/**
 * The instant the zone's clocks show 00:00 on year-month-day (month and day may run over, as
 * Date.UTC allows). Asked twice, so that a change of offset between the guess and the answer
 * (daylight saving time) is taken into account.
 */
export function zonedMidnight(year: number, month: number, day: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day);
  const first = wall - offsetAt(wall, timeZone);
  return wall - offsetAt(first, timeZone);
}

/** The first period end strictly after `ms`: the next Monday 00:00, or the next 1st of a month 00:00. */
export function nextPeriodEnd(frequency: Frequency, ms: number, timeZone: string): number {
  const d = localDate(ms, timeZone);
  if (frequency === 'monthly') return zonedMidnight(d.year, d.month + 1, 1, timeZone);
  const ahead = (8 - d.weekday) % 7 || 7;
  const end = zonedMidnight(d.year, d.month, d.day + ahead, timeZone);
  return end > ms ? end : zonedMidnight(d.year, d.month, d.day + ahead + 7, timeZone);
}

/** The start of the period that ends at `end` (a period end of the same frequency and zone). */
export function periodStart(frequency: Frequency, end: number, timeZone: string): number {
  const d = localDate(end, timeZone);
  return frequency === 'monthly' ? zonedMidnight(d.year, d.month - 1, 1, timeZone) : zonedMidnight(d.year, d.month, d.day - 7, timeZone);
}

/** `2026-03` for a month, `2026-03-02 – 2026-03-08` for a week: the period in a report's title. */
export function periodLabel(frequency: Frequency, from: number, end: number, timeZone: string): string {
  const a = localDate(from, timeZone);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (frequency === 'monthly') return `${a.year}-${pad(a.month)}`;
  const b = localDate(end - 1, timeZone);
  return `${a.year}-${pad(a.month)}-${pad(a.day)} – ${b.year}-${pad(b.month)}-${pad(b.day)}`;
}
