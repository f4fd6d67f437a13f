import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireSystem } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { loadTenant, requirePlan } from '../tenants.js';

/**
 * Operator RPC: moves a tenant to another plan. Features and limits apply from the tenant's next
 * request (the gateway receives the plan with the principal on every request).
 */
export async function setTenantPlan(deps: IdentityDeps, req: identity.SetTenantPlanRequest, ctx: CallerContext): Promise<identity.Tenant> {
  requireSystem(ctx);
  return deps.db.transaction(async (tx) => {
    await loadTenant(tx, req.tenantId);
    await requirePlan(tx, req.plan);
    await tx.query('UPDATE tenants SET plan = $2 WHERE id = $1', [req.tenantId, req.plan]);
    deps.logger.info({ tenant_id: req.tenantId, plan: req.plan, request_id: ctx.requestId }, 'tenant plan changed');
    return loadTenant(tx, req.tenantId);
  });
}
