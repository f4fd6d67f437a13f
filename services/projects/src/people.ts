import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';

/** Display data of a user in events and responses (`changed_by`, docs/rules.md#event-payloads). */
export interface PersonJson {
  user_id: string;
  name: string;
  phone: string;
}

const PHONE = /^\+?[0-9][0-9 -]{4,22}[0-9]$/;

/**
 * Masks a phone number as events show it (docs/rules.md#event-payloads): the first three and last four digits kept
 * (13812345678 → 138****5678). Shorter numbers keep only their last two digits.
 */
export function maskPhone(raw: string): string {
  const digits = raw.replace(/\D/g, '');
  if (digits.length >= 8) return `${digits.slice(0, 3)}****${digits.slice(-4)}`;
  return `${'*'.repeat(Math.max(digits.length - 2, 0))}${digits.slice(-2)}`;
}

/** Validates a phone number given in a request and returns it masked (the only form we keep). */
export function checkPhone(raw: string, field: string): string {
  if (!PHONE.test(raw.trim()) || raw.replace(/\D/g, '').length < 6) {
    throw new DomainError('400004', {
      field,
      detail: `${field} is not a phone number.`,
      suggestion: 'Send digits, optionally with a leading + and spaces or dashes, e.g. 13812345678.',
    });
  }
  return maskPhone(raw.trim());
}

/**
 * A user as the project knows them: the member's display data, or — for a principal that is not
 * a member (an API key, an administrator) — its id as the name and no phone.
 */
export async function personIn(q: Queryable, projectId: string, userId: string): Promise<PersonJson> {
  const { rows } = await q.query<{ name: string | null; phone_masked: string | null }>(
    'SELECT name, phone_masked FROM project_members WHERE project_id = $1 AND user_id = $2',
    [projectId, userId],
  );
  return { user_id: userId, name: rows[0]?.name ?? userId, phone: rows[0]?.phone_masked ?? '' };
}
