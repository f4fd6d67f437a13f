import { DomainError } from '@mp/errors';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '@mp/events';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
/** Event types a delivery can have: the catalogue plus the test event. */
export const DELIVERY_EVENT_TYPES: readonly string[] = [...EVENT_TYPES, TEST_EVENT_TYPE];

/** A query parameter of the delivery list (ADR 0004: a bad query value is 400001, a bad format 400004). */
export function checkEnum(value: string, allowed: readonly string[], field: string): string {
  if (!allowed.includes(value)) {
    throw new DomainError('400001', { field, detail: `${field} must be one of ${allowed.join(', ')}.`, suggestion: `Use one of: ${allowed.join(', ')}.` });
  }
  return value;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export function checkInstant(value: string, field: string): string {
  if (!ISO.test(value) || Number.isNaN(Date.parse(value))) {
    throw new DomainError('400004', {
      field,
      detail: `${field} is not an ISO 8601 date-time.`,
      suggestion: 'Use ISO 8601 with a UTC offset, e.g. 2026-03-01T08:00:00Z.',
    });
  }
  return new Date(value).toISOString();
}

/** from (inclusive) must come before to (exclusive). */
export function checkRange(from: string | undefined, to: string | undefined): void {
  if (from !== undefined && to !== undefined && Date.parse(from) >= Date.parse(to)) {
    throw new DomainError('400003', {
      field: 'to',
      detail: 'to must be later than from (from is inclusive, to exclusive).',
      suggestion: 'Send a to later than from, or leave one of them out.',
    });
  }
}
