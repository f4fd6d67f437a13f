import type { identity } from '@mp/contracts';
import { isUniqueViolation } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { requireSystem } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { hashPassword } from '../passwords.js';
import { ALL_PERMISSIONS } from '../permissions.js';
import { DEFAULT_PLAN } from '../plans.js';
import { toUser, USER_COLUMNS, type UserRow } from '../rows.js';
import { loadTenant, requirePlan } from '../tenants.js';
import { checkName, checkPassword, checkUsername, usernameTaken } from '../users.js';

/** Operator RPC: a new tenant on a plan, with its first administrator (every permission). */
export async function createTenant(deps: IdentityDeps, req: identity.CreateTenantRequest, ctx: CallerContext): Promise<identity.TenantCreated> {
  requireSystem(ctx);
  const name = checkName(req.name);
  const username = checkUsername(req.adminUsername);
  checkPassword(req.adminPassword, 'admin_password');
  const adminName = checkName(req.adminName ?? 'Administrator', 'admin_name');
  const plan = req.plan || DEFAULT_PLAN;
  const passwordHash = await hashPassword(req.adminPassword);
  try {
    return await deps.db.transaction(async (tx) => {
      await requirePlan(tx, plan);
      const now = deps.clock.now().toISOString();
      const tenantId = newId('tenant');
      await tx.query('INSERT INTO tenants (id, name, plan, created_at) VALUES ($1, $2, $3, $4)', [tenantId, name, plan, now]);
      const { rows } = await tx.query<UserRow>(
        `INSERT INTO users (id, tenant_id, username, name, password_hash, permissions, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${USER_COLUMNS}`,
        [newId('user'), tenantId, username, adminName, passwordHash, [...ALL_PERMISSIONS], now],
      );
      deps.logger.info({ tenant_id: tenantId, plan, request_id: ctx.requestId }, 'tenant created');
      return { tenant: await loadTenant(tx, tenantId), admin: toUser(rows[0]!, deps.clock.now()) };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'users_username_unique')) throw usernameTaken(username);
    throw err;
  }
}
