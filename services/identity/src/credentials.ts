import { DomainError } from '@mp/errors';
import type { IdentityDeps } from './deps.js';
import { verifyAgainstDummy, verifyPassword } from './passwords.js';
import { USER_COLUMNS, type UserRow } from './rows.js';

export const wrongCredentials = () =>
  new DomainError('401008', {
    field: 'password',
    detail: 'The username or password is incorrect.',
    suggestion: 'Check the username and password and try again.',
  });

export const accountDisabled = () =>
  new DomainError('401006', {
    field: null,
    detail: 'This account has been disabled by an administrator.',
    suggestion: 'Ask a tenant administrator to re-enable the account.',
  });

export function lockedError(lockedUntil: string, now: Date): DomainError {
  const seconds = Math.max(1, Math.ceil((Date.parse(lockedUntil) - now.getTime()) / 1000));
  return new DomainError('401007', {
    field: null,
    detail: `Too many failed sign-ins: the account is locked until ${lockedUntil}.`,
    suggestion: `Try again after ${lockedUntil}, or ask an administrator to unlock the account.`,
    headers: { 'Retry-After': String(seconds) },
  });
}

const isLocked = (row: Pick<UserRow, 'locked_until'>, now: Date) => row.locked_until !== null && Date.parse(row.locked_until) > now.getTime();

/**
 * Checks a username and password, for POST /auth/login and the OAuth consent page alike (spec §5
 * rules 2 and 6). Every failure with a known username counts towards the lock; while the lock
 * lasts even the right password is refused (401007). An unknown username costs the same time as
 * a wrong password and gets the same answer (401008). A disabled account (401006) is reported
 * only after a correct password, so the answer tells a guesser nothing. On success the failure
 * count is reset and `last_login_at` set; the returned row is the one locked in this check.
 */
export async function verifyCredentials(deps: IdentityDeps, username: string, password: string): Promise<UserRow> {
  if (!username) throw new DomainError('422101', { field: 'username', detail: 'username is required.', suggestion: 'Send username.' });
  if (!password) throw new DomainError('422101', { field: 'password', detail: 'password is required.', suggestion: 'Send password.' });

  const { rows } = await deps.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE username = $1`, [username]);
  const user = rows[0];
  if (!user) {
    await verifyAgainstDummy(password);
    throw wrongCredentials();
  }
  if (isLocked(user, deps.clock.now())) throw lockedError(user.locked_until!, deps.clock.now());

  if (!(await verifyPassword(password, user.password_hash))) {
    const lockedUntil = await recordFailure(deps, user.id);
    if (lockedUntil) throw lockedError(lockedUntil, deps.clock.now());
    throw wrongCredentials();
  }
  if (user.disabled) throw accountDisabled();

  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const { rows: locked } = await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 FOR UPDATE`, [user.id]);
    const current = locked[0];
    if (!current) throw wrongCredentials();
    // A concurrent attempt may have locked or disabled the account while the password was checked.
    if (isLocked(current, now)) throw lockedError(current.locked_until!, now);
    if (current.disabled) throw accountDisabled();
    const { rows: updated } = await tx.query<UserRow>(
      `UPDATE users SET failed_count = 0, first_failed_at = NULL, locked_until = NULL, last_login_at = $2 WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      [user.id, now.toISOString()],
    );
    return updated[0]!;
  });
}

/**
 * Counts a failed sign-in. Failures are counted in a window that opens at the first one; reaching
 * the maximum inside it locks the account. Returns the lock's end when this failure set it.
 */
async function recordFailure(deps: IdentityDeps, userId: string): Promise<string | null> {
  const { maxFailures, failureWindowSeconds, lockSeconds } = deps.settings;
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const { rows } = await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 FOR UPDATE`, [userId]);
    const row = rows[0];
    if (!row) return null;
    if (isLocked(row, now)) return row.locked_until;
    const windowOpen =
      row.first_failed_at !== null &&
      Date.parse(row.first_failed_at) > now.getTime() - failureWindowSeconds * 1000 &&
      // an expired lock starts the count afresh
      row.locked_until === null;
    const count = windowOpen ? row.failed_count + 1 : 1;
    const firstFailedAt = windowOpen ? row.first_failed_at : now.toISOString();
    const lockedUntil = count >= maxFailures ? new Date(now.getTime() + lockSeconds * 1000).toISOString() : null;
    await tx.query('UPDATE users SET failed_count = $2, first_failed_at = $3, locked_until = $4 WHERE id = $1', [userId, count, firstFailedAt, lockedUntil]);
    if (lockedUntil) deps.logger.warn({ user_id: userId, locked_until: lockedUntil }, 'account locked after too many failed logins');
    return lockedUntil;
  });
}
