import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { tenantPlan } from '../plans.js';
import { toUser, USER_COLUMNS, type UserRow } from '../rows.js';

/**
 * GET /me: who the caller is in this environment — a user (with their profile) or an API key —
 * with the permissions in force for this request, the tenant and its plan.
 */
export async function getMe(deps: IdentityDeps, ctx: CallerContext): Promise<identity.Me> {
  requireCaller(ctx);
  const { rows: tenants } = await deps.db.query<{ name: string }>('SELECT name FROM tenants WHERE id = $1', [ctx.tenantId]);
  const plan = await tenantPlan(deps.db, ctx.tenantId);
  const base = {
    principalType: ctx.principalType,
    id: ctx.principalId,
    tenantId: ctx.tenantId,
    tenantName: tenants[0]?.name ?? '',
    environment: ctx.environment,
    permissions: ctx.permissions,
    plan,
  };
  if (ctx.principalType === 'user') {
    const { rows } = await deps.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 AND tenant_id = $2`, [ctx.principalId, ctx.tenantId]);
    const user = rows[0];
    return { ...base, name: user?.name ?? '', ...(user ? { user: toUser(user, deps.clock.now()) } : {}) };
  }
  const { rows } = await deps.db.query<{ name: string }>('SELECT name FROM api_keys WHERE id = $1 AND tenant_id = $2', [ctx.principalId, ctx.tenantId]);
  return { ...base, name: rows[0]?.name ?? '' };
}
