/** How the documents write times and numbers; one place, so PDF, CSV and XLSX agree. */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string, seconds = false): Intl.DateTimeFormat {
  const key = `${timeZone}|${seconds}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' as const } : {}),
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    formatters.set(key, f);
  }
  return f;
}

/**
 * `2026-03-01 08:00 UTC+08:00` in the report's time zone (UTC shows as `UTC`); with `seconds`,
 * `2026-03-01 08:00:05 UTC+08:00` (a reading's measured_at, to the second as it was recorded).
 */
export function localTime(iso: string, timeZone: string, seconds = false): string {
  const parts = Object.fromEntries(
    formatterFor(timeZone, seconds)
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === 'GMT' ? 'UTC' : String(parts.timeZoneName).replace('GMT', 'UTC');
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}${seconds ? `:${parts.second}` : ''} ${offset}`;
}

/** A time-axis label in the time zone: `2026-03-01`, with the time of day when the plot spans under ten days. */
export function axisTime(ms: number, spanMs: number, timeZone: string): string {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const day = `${parts.year}-${parts.month}-${parts.day}`;
  return spanMs < 10 * 86_400_000 ? `${day} ${parts.hour}:${parts.minute}` : day;
}

/** A statistic in mm: three decimals (micrometres), no negative zero. */
export function mm(value: number | null | undefined, decimals = 3): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const s = value.toFixed(decimals);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

/** A stored value exactly as the API reports it (JSON's shortest round-trip form). */
export const exact = (value: number | null | undefined): string => (value === null || value === undefined ? '' : String(value));
