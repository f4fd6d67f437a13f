import { DomainError, excerpt } from '@mp/errors';
import { isId, type IdKind } from '@mp/kit';

// Field checks shared by the use cases. Codes follow docs/adr/0004: out of range 400003, bad
// format 400004, bad enumerated value 422103. The gateway checks JSON types; these check values.

/** A trimmed string of `min` to `max` characters. */
export function checkText(value: string, field: string, min: number, max: number): string {
  const text = value.trim();
  if (text.length < min || text.length > max) {
    throw new DomainError('400003', {
      field,
      detail: `${field} must be ${min} to ${max} characters long; got ${text.length}.`,
      suggestion: `Send a ${field} of ${min} to ${max} characters.`,
    });
  }
  return text;
}

/** Optional free text such as a description: at most `max` characters, empty means none. */
export function checkOptionalText(value: string | undefined, field: string, max: number): string | null {
  if (value === undefined) return null;
  if (value.length > max)
    throw new DomainError('400003', { field, detail: `${field} is at most ${max} characters long.`, suggestion: `Shorten ${field} to ${max} characters.` });
  return value.trim() === '' ? null : value;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date YYYY-MM-DD (start_date, calibration dates). */
export function checkDate(value: string | undefined, field: string): string | null {
  if (value === undefined || value === '') return null;
  if (!DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) {
    throw new DomainError('400004', {
      field,
      detail: `${field} must be a calendar date in ISO 8601 form (YYYY-MM-DD).`,
      suggestion: 'Send the date as YYYY-MM-DD, e.g. 2026-03-01.',
    });
  }
  return value;
}

// Date, time and an explicit offset (Z or ±hh:mm); without an offset the instant is ambiguous.
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 instant with a UTC offset; returned in UTC (`…Z`). */
export function checkDateTime(value: string, field: string): string {
  const m = DATE_TIME.exec(value);
  const ms = Date.parse(value);
  if (!m || Number.isNaN(ms) || checkDateOnly(m[1]!) === null || Number(m[2]) > 23 || Number(m[3]) > 59) {
    throw new DomainError('400004', {
      field,
      detail: `${field} must be an ISO 8601 date-time with a UTC offset.`,
      suggestion: 'Send e.g. 2026-05-10T18:00:00+08:00 or 2026-05-10T10:00:00Z.',
    });
  }
  return new Date(ms).toISOString();
}

function checkDateOnly(value: string): string | null {
  try {
    return checkDate(value, 'date');
  } catch {
    return null;
  }
}

/** One of the allowed values (422103 otherwise). */
export function checkEnum<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new DomainError('422103', {
      field,
      detail: `${field} must be one of ${allowed.join(', ')}; got ${excerpt(value)}.`,
      suggestion: `Use one of: ${allowed.join(', ')}.`,
    });
  }
  return value as T;
}

/** An id of the given kind, e.g. `prj_…` (400004 when malformed). */
export function checkId(kind: IdKind, value: string, field: string): string {
  if (!isId(kind, value)) {
    const example = { project: 'prj_…', task: 'tsk_…', point: 'pt_…', device: 'dev_…', user: 'usr_…' }[kind as string] ?? 'the id the API returned';
    throw new DomainError('400004', {
      field,
      detail: `${field} is not a well-formed id (${example}).`,
      suggestion: 'Use the id exactly as the API returned it.',
    });
  }
  return value;
}

/** A finite number, optionally required to be greater than zero. */
export function checkNumber(value: number, field: string, opts: { positive?: boolean } = {}): number {
  if (!Number.isFinite(value) || (opts.positive && value <= 0)) {
    throw new DomainError('400003', {
      field,
      detail: opts.positive ? `${field} must be a number greater than 0; got ${value}.` : `${field} must be a finite number.`,
      suggestion: opts.positive ? `Send ${field} as a positive number.` : `Send ${field} as a number.`,
    });
  }
  return value;
}

/** Names listed in an update's `clear` must be clearable fields of that resource. */
export function checkClear(clear: string[], allowed: readonly string[]): Set<string> {
  for (const f of clear) {
    if (!allowed.includes(f))
      throw new DomainError('422103', { field: f, detail: `${f} cannot be set to null.`, suggestion: `Only ${allowed.join(', ')} may be null.` });
  }
  return new Set(clear);
}

/** LIKE pattern matching `q` anywhere, with the wildcard characters of `q` escaped. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
