/**
 * A project's times in its own time zone (the project's `time_zone`, an IANA name, UTC when not
 * set): the site's people read the clock of the site, not of UTC or of the browser.
 */
const formats = new Map<string, Intl.DateTimeFormat>();
function format(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
}

/** The wall clock of `zone` at instant `ms`: [year, month, day, hour, minute, second]. */
function wallClock(ms: number, zone: string): number[] {
  const parts = Object.fromEntries(
    format(zone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return ['year', 'month', 'day', 'hour', 'minute', 'second'].map((k) => Number(parts[k]));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-03-01 08:00:00` as the clock of `zone` shows it (no zone name). */
export function wallTime(iso: string | number, zone: string): string {
  const [y, mo, d, h, mi, s] = wallClock(typeof iso === 'number' ? iso : Date.parse(iso), zone);
  return `${y}-${pad(mo!)}-${pad(d!)} ${pad(h!)}:${pad(mi!)}:${pad(s!)}`;
}

/** A time with its zone named: `2026-03-01 08:00:00 Asia/Shanghai` (`… UTC` for UTC). */
export function inZone(iso: string | null | undefined, zone = 'UTC'): string {
  return iso ? `${wallTime(iso, zone)} ${zone}` : '—';
}

/**
 * The instant of a wall-clock time of `zone` (`YYYY-MM-DDTHH:mm[:ss]`, what a datetime-local
 * input gives) as ISO 8601 UTC. The zone's offset is read from Intl at that instant and checked
 * once more, so a time near a daylight-saving change lands on the right side.
 */
export function fromWallTime(local: string, zone: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(local);
  if (!m) throw new Error(`Not a date and time: ${local}`);
  const asUtc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0));
  const offset = (ms: number) => {
    const [y, mo, d, h, mi, s] = wallClock(ms, zone);
    return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) - ms;
  };
  let t = asUtc - offset(asUtc);
  t = asUtc - offset(t);
  return new Date(t).toISOString();
}

/** The zone's wall clock now, for a datetime-local input's initial value (`YYYY-MM-DDTHH:mm`). */
export const nowInZone = (zone: string) => wallTime(Date.now(), zone).slice(0, 16).replace(' ', 'T');
