import type { Queryable } from '@mp/db';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import { USER_COLUMNS, type UserRow } from './rows.js';

/** Usernames sign in across tenants, so they are plain and unambiguous. */
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{1,199}$/;
export const MIN_PASSWORD_LENGTH = 8;

export function checkUserId(id: string, field = 'user_id'): void {
  if (!isId('user', id)) {
    throw new DomainError('400004', { field, detail: `${field} is not a user id (usr_…).`, suggestion: 'Use the id returned by POST /users or GET /users.' });
  }
}

export const userNotFound = (id: string, field = 'user_id') =>
  new DomainError('404007', { field, detail: `User ${id} does not exist.`, suggestion: 'Check the user id, or list users with GET /users.' });

/**
 * A user of the caller's tenant: 404007 when unknown, 403003 when another tenant's (docs/rules.md#tenant-isolation:
 * another tenant's resource never shows its content). Users belong to the tenant, not to an
 * environment: the same account signs in at the live and the sandbox base URL.
 */
export async function loadUser(q: Queryable, ctx: CallerContext, id: string, opts: { lock?: boolean } = {}): Promise<UserRow> {
  checkUserId(id);
  const { rows } = await q.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  const row = rows[0];
  if (!row) throw userNotFound(id);
  if (row.tenant_id !== ctx.tenantId) throw new DomainError('403003', { field: 'user_id', detail: 'user_id names a user of another tenant.' });
  return row;
}

export function checkUsername(raw: string): string {
  const username = raw.trim();
  if (!username) throw new DomainError('422101', { field: 'username', detail: 'username is required.', suggestion: 'Send a username.' });
  if (!USERNAME.test(username)) {
    throw new DomainError('422103', {
      field: 'username',
      detail: 'username must be 2 to 200 characters: letters, digits and . _ @ - (not starting with a symbol).',
      suggestion: 'Use e.g. "site.surveyor" or an e-mail address.',
    });
  }
  return username;
}

export function checkPassword(password: string, field = 'password'): void {
  if (!password) throw new DomainError('422101', { field, detail: `${field} is required.`, suggestion: `Send ${field}.` });
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 1000) {
    throw new DomainError('400003', {
      field,
      detail: `${field} must be ${MIN_PASSWORD_LENGTH} to 1000 characters long.`,
      suggestion: 'Use a long passphrase; spaces are allowed.',
    });
  }
}

export function checkName(raw: string, field = 'name'): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > 100) {
    throw new DomainError(name.length === 0 ? '422101' : '400003', {
      field,
      detail: `${field} must be 1 to 100 characters long.`,
      suggestion: `Send the person's display name in ${field}.`,
    });
  }
  return name;
}

/** Sign-in is by username alone, so a username is unique across tenants. */
export const usernameTaken = (username: string) =>
  new DomainError('409009', {
    field: 'username',
    detail: `The username ${excerpt(username)} is already taken.`,
    suggestion: 'Choose another username, e.g. with your organisation as a suffix.',
  });
