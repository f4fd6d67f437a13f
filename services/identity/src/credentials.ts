import { DomainError } from '@mp/errors';
import type { IdentityDeps } from './deps.js';
import { activeLock, clearFailures, loginAttempt, recordFailure } from './login-failures.js';
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
    detail: `Too many failed sign-ins from your network address: this account is locked for it until ${lockedUntil}.`,
    suggestion: `Try again after ${lockedUntil}, or ask an administrator to unlock the account.`,
    headers: { 'Retry-After': String(seconds) },
  });
}

/**
 * Checks a username and password, for POST /auth/login and the OAuth consent page alike (docs/rules.md#sign-in,
 * docs/rules.md#lockout). Failures are counted per username and source address (`clientAddress`, the
 * TCP peer the gateway saw; ADR 0019): while the lock of this source lasts even the right
 * password is refused (401007), and the owner signing in from elsewhere is not. An unknown
 * username is counted, answered and timed exactly like a wrong password (a dummy hash is
 * verified), so no answer tells which usernames exist. A disabled account (401006) is reported
 * only after a correct password. On success this source's count is cleared and `last_login_at`
 * set; the returned row is the one locked in this check.
 */
export async function verifyCredentials(deps: IdentityDeps, username: string, password: string, clientAddress: string): Promise<UserRow> {
  if (!username) throw new DomainError('422101', { field: 'username', detail: 'username is required.', suggestion: 'Send username.' });
  if (!password) throw new DomainError('422101', { field: 'password', detail: 'password is required.', suggestion: 'Send password.' });

  const attempt = loginAttempt(username, clientAddress);
  const lockedUntil = await activeLock(deps.db, attempt, deps.clock.now());
  if (lockedUntil) throw lockedError(lockedUntil, deps.clock.now());

  const { rows } = await deps.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE username = $1`, [username]);
  const user = rows[0];
  const matches = user ? await verifyPassword(password, user.password_hash) : await verifyAgainstDummy(password);
  if (!user || !matches) {
    const locked = await recordFailure(deps, attempt, user?.id ?? null);
    if (locked) throw lockedError(locked, deps.clock.now());
    throw wrongCredentials();
  }
  if (user.disabled) throw accountDisabled();

  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const { rows: locked } = await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 FOR UPDATE`, [user.id]);
    const current = locked[0];
    if (!current) throw wrongCredentials();
    // A concurrent attempt may have locked this source or disabled the account while the password was checked.
    const lockedNow = await activeLock(tx, attempt, now, { lock: true });
    if (lockedNow) throw lockedError(lockedNow, now);
    if (current.disabled) throw accountDisabled();
    await clearFailures(tx, attempt);
    const { rows: updated } = await tx.query<UserRow>(`UPDATE users SET last_login_at = $2 WHERE id = $1 RETURNING ${USER_COLUMNS}`, [
      user.id,
      now.toISOString(),
    ]);
    return updated[0]!;
  });
}
