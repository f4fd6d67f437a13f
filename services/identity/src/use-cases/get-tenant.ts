import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireSystem } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { loadTenant } from '../tenants.js';

/** Operator RPC: a tenant and its plan. */
export async function getTenant(deps: IdentityDeps, req: identity.TenantRef, ctx: CallerContext): Promise<identity.Tenant> {
  requireSystem(ctx);
  return loadTenant(deps.db, req.id);
}
