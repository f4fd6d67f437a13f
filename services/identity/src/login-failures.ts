import type { Database, Queryable } from '@mp/db';
import { clientSource, sha256Hex } from '@mp/kit';
import type { IdentityDeps } from './deps.js';

/**
 * Failed sign-ins, counted per username AND source (ADR 0019): MP_LOGIN_MAX_FAILURES failures
 * within MP_LOGIN_FAILURE_WINDOW_SECONDS from one source lock that username for that source for
 * MP_LOGIN_LOCK_SECONDS (401007), while the rightful owner signing in from elsewhere still gets
 * in. Unknown usernames are counted exactly like known ones, so neither the answer nor its
 * timing tells which usernames exist. The username is kept only as its SHA-256 (people type
 * passwords into the username field).
 */
export interface LoginAttempt {
  usernameKey: string;
  source: string;
}

export const loginAttempt = (username: string, clientAddress: string): LoginAttempt => ({
  usernameKey: sha256Hex(username),
  source: clientSource(clientAddress),
});

/**
 * Failures of one account across all sources, within the window, at which identity warns in its
 * log (distributed guessing). It warns and does not lock or slow down: see ADR 0019 for why.
 */
export const ACCOUNT_ALERT_FACTOR = 20;

interface FailureRow {
  failed_count: number;
  first_failed_at: string;
  locked_until: string | null;
}

/** Rows removed per recorded failure once they no longer matter: the table stays the size of what is live. */
const PRUNE_BATCH = 100;

/** The end of the lock of this username for this source, when one is in force. */
export async function activeLock(q: Queryable, attempt: LoginAttempt, now: Date, opts: { lock?: boolean } = {}): Promise<string | null> {
  const { rows } = await q.query<{ locked_until: string | null }>(
    `SELECT locked_until FROM login_failures WHERE username_key = $1 AND source = $2 AND locked_until > $3${opts.lock ? ' FOR UPDATE' : ''}`,
    [attempt.usernameKey, attempt.source, now.toISOString()],
  );
  return rows[0]?.locked_until ? new Date(rows[0].locked_until).toISOString() : null;
}

/**
 * Counts a failed sign-in of `attempt`. Failures are counted in a window that opens at the first
 * one; reaching the maximum inside it locks the username for this source. Returns the lock's end
 * when one is in force after this failure. `userId` (null for an unknown username) gets the lock
 * shown as its `locked_until`, for administrators.
 */
export async function recordFailure(deps: IdentityDeps, attempt: LoginAttempt, userId: string | null): Promise<string | null> {
  const { maxFailures, failureWindowSeconds, lockSeconds } = deps.settings;
  const now = deps.clock.now();
  const lockedUntil = await deps.db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO login_failures (username_key, source, failed_count, first_failed_at, expires_at) VALUES ($1, $2, 0, $3, $3)
       ON CONFLICT (username_key, source) DO NOTHING`,
      [attempt.usernameKey, attempt.source, now.toISOString()],
    );
    const { rows } = await tx.query<FailureRow>(
      'SELECT failed_count, first_failed_at, locked_until FROM login_failures WHERE username_key = $1 AND source = $2 FOR UPDATE',
      [attempt.usernameKey, attempt.source],
    );
    const row = rows[0]!;
    if (row.locked_until !== null && new Date(row.locked_until).getTime() > now.getTime()) return new Date(row.locked_until).toISOString();
    // an expired lock, like a closed window, starts the count afresh
    const windowOpen = row.locked_until === null && new Date(row.first_failed_at).getTime() > now.getTime() - failureWindowSeconds * 1000;
    const count = windowOpen ? row.failed_count + 1 : 1;
    const firstFailedAt = windowOpen ? new Date(row.first_failed_at) : now;
    const locked = count >= maxFailures ? new Date(now.getTime() + lockSeconds * 1000) : null;
    const expiresAt = locked ?? new Date(firstFailedAt.getTime() + failureWindowSeconds * 1000);
    await tx.query(
      'UPDATE login_failures SET failed_count = $3, first_failed_at = $4, locked_until = $5, expires_at = $6 WHERE username_key = $1 AND source = $2',
      [attempt.usernameKey, attempt.source, count, firstFailedAt.toISOString(), locked?.toISOString() ?? null, expiresAt.toISOString()],
    );
    if (locked && userId) {
      await tx.query('UPDATE users SET locked_until = GREATEST(locked_until, $2) WHERE id = $1', [userId, locked.toISOString()]);
    }
    if (locked) deps.logger.warn({ user_id: userId, source: attempt.source, locked_until: locked.toISOString() }, 'sign-in locked after too many failures');
    await warnOnDistributedGuessing(deps, tx, attempt, userId, now);
    return locked?.toISOString() ?? null;
  });
  await pruneExpired(deps.db, now);
  return lockedUntil;
}

/** A successful sign-in from this source starts its count afresh (other sources keep theirs). */
export async function clearFailures(tx: Queryable, attempt: LoginAttempt): Promise<void> {
  await tx.query('DELETE FROM login_failures WHERE username_key = $1 AND source = $2', [attempt.usernameKey, attempt.source]);
}

/** An administrator's unlock: every source of the username may try again at once. */
export async function clearAllFailures(tx: Queryable, username: string): Promise<void> {
  await tx.query('DELETE FROM login_failures WHERE username_key = $1', [sha256Hex(username)]);
}

/** Logs once, when this failure makes the account's failures across sources reach the alert level. */
async function warnOnDistributedGuessing(deps: IdentityDeps, tx: Queryable, attempt: LoginAttempt, userId: string | null, now: Date): Promise<void> {
  const threshold = ACCOUNT_ALERT_FACTOR * deps.settings.maxFailures;
  const { rows } = await tx.query<{ failures: string; sources: string }>(
    'SELECT COALESCE(sum(failed_count), 0) AS failures, count(*) AS sources FROM login_failures WHERE username_key = $1 AND expires_at > $2',
    [attempt.usernameKey, now.toISOString()],
  );
  if (Number(rows[0]!.failures) === threshold) {
    deps.logger.warn(
      { user_id: userId, failures: threshold, sources: Number(rows[0]!.sources), alarm: 'login_failures_distributed' },
      'many failed sign-ins of one account from many sources',
    );
  }
}

async function pruneExpired(db: Database, now: Date): Promise<void> {
  await db.query(
    `DELETE FROM login_failures WHERE (username_key, source) IN
       (SELECT username_key, source FROM login_failures WHERE expires_at <= $1 LIMIT ${PRUNE_BATCH})`,
    [now.toISOString()],
  );
}
