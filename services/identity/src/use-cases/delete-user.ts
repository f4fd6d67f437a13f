import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { requireReachable } from '../permissions.js';
import { toUser } from '../rows.js';
import { loadUser } from '../users.js';
import { principalChanges } from '../principal-changes.js';

/**
 * DELETE /users/{id}: the account, its sessions, refresh tokens and pending OAuth codes go
 * (cascade), so its tokens are refused from the next request on. The username becomes free.
 * An administrator cannot delete their own account, nor one holding a permission they do not
 * hold (401004; ADR 0019). Version-guarded like PATCH.
 */
export async function deleteUser(deps: IdentityDeps, req: identity.UserRef, ctx: CallerContext): Promise<identity.User> {
  requireCaller(ctx);
  if (req.id === ctx.principalId) {
    throw new DomainError('422204', { field: 'user_id', detail: 'You cannot delete your own account.', suggestion: 'Ask another administrator to do it.' });
  }
  const changes = principalChanges(deps);
  const row = await deps.db.transaction(async (tx) => {
    const user = await loadUser(tx, ctx, req.id, { lock: true });
    requireReachable(user.permissions, ctx, { field: 'user_id', name: `User ${user.id}` });
    if (req.expectedVersion !== undefined && req.expectedVersion !== user.version) {
      throw new DomainError('409004', {
        field: 'version',
        detail: `User ${user.id} is at version ${user.version}; the request expected ${req.expectedVersion}.`,
        suggestion: 'Reload the user and delete again if still intended.',
      });
    }
    await changes.bump(user.tenant_id);
    await tx.query('DELETE FROM users WHERE id = $1', [user.id]);
    return user;
  });
  await changes.settle();
  deps.logger.info({ user_id: req.id, deleted_by: ctx.principalId, request_id: ctx.requestId }, 'user deleted');
  return toUser(row, deps.clock.now());
}
