import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireSystem } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { loadTenant, requirePlan } from '../tenants.js';
import { principalChanges } from '../principal-changes.js';

/**
 * Operator RPC: moves a tenant to another plan. Features and limits apply from the tenant's next
 * request (the gateway receives the plan with the principal; the tenant's auth version is bumped
 * so that no gateway keeps a cached one, ADR 0119).
 */
export async function setTenantPlan(deps: IdentityDeps, req: identity.SetTenantPlanRequest, ctx: CallerContext): Promise<identity.Tenant> {
  requireSystem(ctx);
  const changes = principalChanges(deps);
  const tenant = await deps.db.transaction(async (tx) => {
    await loadTenant(tx, req.tenantId);
    await requirePlan(tx, req.plan);
    await tx.query('UPDATE tenants SET plan = $2 WHERE id = $1', [req.tenantId, req.plan]);
    deps.logger.info({ tenant_id: req.tenantId, plan: req.plan, request_id: ctx.requestId }, 'tenant plan changed');
    // The plan comes with every cached principal of the tenant (ADR 0119).
    await changes.bump(req.tenantId);
    return loadTenant(tx, req.tenantId);
  });
  await changes.settle();
  return tenant;
}
