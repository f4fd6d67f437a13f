import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { hashPassword } from '../passwords.js';
import { clearAllFailures } from '../login-failures.js';
import { checkGrantable, requireReachable } from '../permissions.js';
import { checkPhone } from '../phone.js';
import { toUser, USER_COLUMNS, type UserRow } from '../rows.js';
import { revokeSessions } from '../sessions.js';
import { checkName, checkPassword, loadUser } from '../users.js';
import { principalChanges } from '../principal-changes.js';

const CLEARABLE = ['phone'];

/**
 * PATCH /users/{id}. Disabling an account refuses its next sign-in and refresh (401006) and ends
 * its sessions, so its access tokens are refused from the next request on (ADR 0010); a new
 * password ends its sessions too. An administrator cannot disable their own account (there would
 * be no way back in). The caller must hold every permission of the user (401004 otherwise, and
 * nothing changes; ADR 0019), and may grant only what it holds, so no one reaches or makes an
 * account wider than itself — its own included. A stale version is 409004; a request that
 * changes nothing keeps the version. An unlock lets every source try again at once.
 */
export async function updateUser(deps: IdentityDeps, req: identity.UpdateUserRequest, ctx: CallerContext): Promise<identity.User> {
  requireCaller(ctx);
  const set: Record<string, unknown> = {};
  if (req.name !== undefined) set.name = checkName(req.name);
  if (req.phone !== undefined) set.phone = checkPhone(req.phone);
  req.clear.forEach((field, i) => {
    if (!CLEARABLE.includes(field)) {
      throw new DomainError('422103', {
        field: `clear[${i}]`,
        detail: `${field} cannot be set to null.`,
        suggestion: `Only ${CLEARABLE.join(', ')} can be null.`,
      });
    }
    if (set[field] !== undefined)
      throw new DomainError('422204', { field, detail: `${field} is both given and set to null.`, suggestion: `Send ${field} or null, not both.` });
    set[field] = null;
  });
  if (req.password !== undefined) checkPassword(req.password);
  if (req.disabled === true && req.id === ctx.principalId) {
    throw new DomainError('422204', { field: 'disabled', detail: 'You cannot disable your own account.', suggestion: 'Ask another administrator to do it.' });
  }
  const passwordHash = req.password !== undefined ? await hashPassword(req.password) : undefined;

  const changes = principalChanges(deps);
  const updated = await deps.db.transaction(async (tx) => {
    const row = await loadUser(tx, ctx, req.id, { lock: true });
    requireReachable(row.permissions, ctx, { field: 'user_id', name: `User ${row.id}` });
    if (req.expectedVersion !== undefined && req.expectedVersion !== row.version) {
      throw new DomainError('409004', {
        field: 'version',
        detail: `User ${row.id} is at version ${row.version}; the request expected ${req.expectedVersion}.`,
        suggestion: 'Reload the user (GET /users/{user_id}) and apply the change again.',
      });
    }
    if (req.permissions !== undefined) set.permissions = checkGrantable(req.permissions.values, ctx, { allowEmpty: true });
    if (req.disabled !== undefined) set.disabled = req.disabled;
    if (passwordHash !== undefined) set.password_hash = passwordHash;
    if (req.unlock) set.locked_until = null;
    if (req.unlock) await clearAllFailures(tx, row.username);
    const changed = Object.entries(set).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify((row as unknown as Record<string, unknown>)[k]));
    if (changed.length === 0) return row;
    const now = deps.clock.now();
    const params: unknown[] = [row.id, now.toISOString()];
    const assignments = changed.map(([k, v]) => {
      params.push(v);
      return `${k} = $${params.length}`;
    });
    const { rows } = await tx.query<UserRow>(
      `UPDATE users SET ${assignments.join(', ')}, updated_at = $2, version = version + 1 WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      params,
    );
    // Its permissions, name or state may be cached by the gateways (ADR 0119).
    await changes.bump(row.tenant_id);
    if (req.disabled === true && !row.disabled) await revokeSessions(tx, { userId: row.id }, 'user_disabled', now, changes);
    if (passwordHash !== undefined) await revokeSessions(tx, { userId: row.id }, 'password_changed', now, changes);
    return rows[0]!;
  });
  await changes.settle();
  deps.logger.info({ user_id: req.id, updated_by: ctx.principalId, request_id: ctx.requestId }, 'user updated');
  return toUser(updated, deps.clock.now());
}
