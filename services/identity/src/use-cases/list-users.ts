import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { newestFirst, pageOfRows } from '../paging.js';
import { toUser, USER_COLUMNS, type UserRow } from '../rows.js';

/** GET /users: the users of the caller's tenant, newest first; `q` matches username or name. */
export async function listUsers(deps: IdentityDeps, req: identity.ListUsersRequest, ctx: CallerContext): Promise<identity.UserList> {
  requireCaller(ctx);
  const params: unknown[] = [ctx.tenantId];
  const where = ['tenant_id = $1'];
  if (req.disabled !== undefined) {
    params.push(req.disabled);
    where.push(`disabled = $${params.length}`);
  }
  if (req.q) {
    params.push(`%${req.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(username ILIKE $${params.length} OR name ILIKE $${params.length})`);
  }
  const { limit, limitParam } = newestFirst(req.page, where, params);
  const { rows } = await deps.db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limitParam}`,
    params,
  );
  const now = deps.clock.now();
  return pageOfRows(rows, limit, (r) => toUser(r, now));
}
