import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { toUser } from '../rows.js';
import { loadUser } from '../users.js';

/** GET /users/{id}: 404007 when unknown, 403003 when another tenant's. */
export async function getUser(deps: IdentityDeps, req: identity.UserRef, ctx: CallerContext): Promise<identity.User> {
  requireCaller(ctx);
  return toUser(await loadUser(deps.db, ctx, req.id), deps.clock.now());
}
