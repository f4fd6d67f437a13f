import { randomUUID } from 'node:crypto';
import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { verifyAgainstDummy, verifyPassword } from '../passwords.js';
import { USER_COLUMNS, type UserRow } from '../rows.js';
import { issueTokens } from '../tokens.js';

const wrongCredentials = () => new DomainError('401008', { field: 'password', detail: 'The username or password is incorrect.' });

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
 * POST /auth/login (spec §5 rule 2). Every failure with a known username counts towards the
 * lock of rule 6; while the lock lasts even the right password is refused (401007). An unknown
 * username costs the same time as a wrong password and gets the same answer.
 */
export async function login(deps: IdentityDeps, req: identity.LoginRequest): Promise<identity.TokenResponse> {
  const environment = parseEnvironment(req.environment);
  if (!req.username) throw new DomainError('422101', { field: 'username', detail: 'username is required.' });
  if (!req.password) throw new DomainError('422101', { field: 'password', detail: 'password is required.' });

  const { rows } = await deps.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE username = $1`, [req.username]);
  const user = rows[0];
  if (!user) {
    await verifyAgainstDummy(req.password);
    throw wrongCredentials();
  }
  if (isLocked(user, deps.clock.now())) throw lockedError(user.locked_until!, deps.clock.now());

  const ok = await verifyPassword(req.password, user.password_hash);
  if (!ok) {
    const lockedUntil = await recordFailure(deps, user.id);
    if (lockedUntil) throw lockedError(lockedUntil, deps.clock.now());
    throw wrongCredentials();
  }
  // Checked only after the password, so the answer does not reveal the state to a guesser.
  if (user.disabled) throw new DomainError('401006', { field: null, detail: 'This account has been disabled by an administrator.' });

  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const { rows: locked } = await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 FOR UPDATE`, [user.id]);
    const current = locked[0];
    if (!current) throw wrongCredentials();
    // A concurrent attempt may have locked or disabled the account while the password was checked.
    if (isLocked(current, now)) throw lockedError(current.locked_until!, now);
    if (current.disabled) throw new DomainError('401006', { field: null, detail: 'This account has been disabled by an administrator.' });
    if (current.failed_count !== 0 || current.locked_until !== null || current.first_failed_at !== null) {
      await tx.query('UPDATE users SET failed_count = 0, first_failed_at = NULL, locked_until = NULL WHERE id = $1', [user.id]);
    }
    return issueTokens(deps, tx, { userId: current.id, tenantId: current.tenant_id, permissions: current.permissions }, environment, randomUUID());
  });
}

/**
 * Counts a failed login. Failures are counted in a window that opens at the first one; reaching
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
