import type { identity } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { requireSystem } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { clearAllFailures } from '../login-failures.js';
import { hashPassword } from '../passwords.js';
import { toUser, USER_COLUMNS, type UserRow } from '../rows.js';
import { revokeSessions } from '../sessions.js';
import { loadTenant } from '../tenants.js';
import { checkPassword } from '../users.js';
import { principalChanges } from '../principal-changes.js';

/**
 * Operator RPC (`mp-operator reset-password`): the way back in when an administrator's password
 * is lost, which no API call can offer (every one needs a signed-in principal). Sets the
 * password, ends every session of the user (refresh tokens refused, access tokens refused from
 * the next request on) and lifts the sign-in locks of the username from every source. It does
 * not enable a disabled account: that stays an administrator's decision (ADR 0076).
 */
export async function resetPassword(deps: IdentityDeps, req: identity.ResetPasswordRequest, ctx: CallerContext): Promise<identity.PasswordReset> {
  requireSystem(ctx);
  const username = req.username.trim();
  if (!username) throw new DomainError('422101', { field: 'username', detail: 'username is required.', suggestion: 'Pass --username.' });
  checkPassword(req.password);
  const passwordHash = await hashPassword(req.password);

  const changes = principalChanges(deps);
  const { row, ended } = await deps.db.transaction(async (tx) => {
    if (req.tenantId !== undefined && req.tenantId !== '') await loadTenant(tx, req.tenantId);
    const { rows } = await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE username = $1 FOR UPDATE`, [username]);
    const found = rows[0];
    if (!found || (req.tenantId && found.tenant_id !== req.tenantId)) {
      throw new DomainError('404007', {
        field: 'username',
        detail: `No user ${excerpt(username)}${req.tenantId ? ` in tenant ${req.tenantId}` : ''}.`,
        suggestion: 'Usernames are unique across tenants; check the spelling (the start banner names the first administrator).',
      });
    }
    const now = deps.clock.now();
    const { rows: updated } = await tx.query<UserRow>(
      `UPDATE users SET password_hash = $2, locked_until = NULL, updated_at = $3, version = version + 1 WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      [found.id, passwordHash, now.toISOString()],
    );
    await clearAllFailures(tx, found.username);
    const sessions = await revokeSessions(tx, { userId: found.id }, 'password_reset', now, changes);
    return { row: updated[0]!, ended: sessions.length };
  });
  await changes.settle();
  deps.logger.warn(
    { user_id: row.id, tenant_id: row.tenant_id, sessions_ended: ended, request_id: ctx.requestId },
    'password reset by the operator; sessions ended and sign-in locks lifted',
  );
  return { user: toUser(row, deps.clock.now()), sessionsEnded: ended };
}
