import { DomainError } from '@mp/errors';
import { parseMeasuredAt } from './measured-at.js';

/** from/to query parameters: ISO 8601 with an offset (400004 otherwise); from before to (422204). */
export function timeRange(from: string | undefined, to: string | undefined): { from: number | null; to: number | null } {
  const parse = (v: string | undefined, field: string) => {
    if (v === undefined || v === '') return null;
    const p = parseMeasuredAt(v);
    if (!p)
      throw new DomainError('400004', {
        field,
        detail: `${field} must be an ISO 8601 date-time with a UTC offset, e.g. 2026-03-01T00:00:00Z.`,
        suggestion: 'Use YYYY-MM-DDTHH:mm:ssZ (URL-encode + as %2B).',
      });
    return p.ms;
  };
  const range = { from: parse(from, 'from'), to: parse(to, 'to') };
  if (range.from !== null && range.to !== null && range.to <= range.from) {
    throw new DomainError('422204', { field: 'to', detail: 'to must be later than from.', suggestion: 'Send a time range whose end is after its start.' });
  }
  return range;
}
