import { DomainError, excerpt } from '@mp/errors';

/** Longest IANA zone name accepted (the longest in the database is 30 characters). */
const MAX_TIME_ZONE_LENGTH = 64;

/**
 * An IANA time zone as the runtime's time-zone database spells it (`europe/berlin` becomes
 * `Europe/Berlin`, `UTC` stays `UTC`); 422103 naming `field` otherwise. Offsets such as `+08:00`
 * are refused: a zone follows daylight saving time, an offset does not, and every time the
 * console and the reports show is meant to read as a clock on the site reads.
 */
export function checkTimeZone(value: string, field = 'time_zone'): string {
  const refuse = () =>
    new DomainError('422103', {
      field,
      detail: `${excerpt(value)} is not an IANA time zone.`,
      suggestion: 'Send a zone name of the IANA database, e.g. "Asia/Shanghai", "Europe/Berlin" or "UTC".',
    });
  if (value.length === 0 || value.length > MAX_TIME_ZONE_LENGTH || /^[+-]/.test(value)) throw refuse();
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw refuse();
  }
}
