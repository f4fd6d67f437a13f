import { DomainError } from '@mp/errors';

// The same rule and mask as the projects service's member phones (services/projects/src/people.ts),
// so a user's phone looks alike wherever it appears.
const PHONE = /^\+?[0-9][0-9 -]{4,22}[0-9]$/;

/** Validates a phone number given in a request; returns it trimmed. */
export function checkPhone(raw: string, field = 'phone'): string {
  const value = raw.trim();
  if (!PHONE.test(value) || value.replace(/\D/g, '').length < 6) {
    throw new DomainError('400004', {
      field,
      detail: `${field} is not a phone number.`,
      suggestion: 'Send digits, optionally with a leading + and spaces or dashes, e.g. 13812345678.',
    });
  }
  return value;
}

/** The masked form of docs/rules.md#event-payloads: first three and last four digits kept (13812345678 → 138****5678). */
export function maskPhone(raw: string): string {
  const digits = raw.replace(/\D/g, '');
  if (digits.length >= 8) return `${digits.slice(0, 3)}****${digits.slice(-4)}`;
  return `${'*'.repeat(Math.max(digits.length - 2, 0))}${digits.slice(-2)}`;
}
