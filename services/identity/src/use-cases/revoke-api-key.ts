import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { requireReachable } from '../permissions.js';
import { toApiKey, type ApiKeyRow } from '../rows.js';
import { checkKeyId, keyNotFound } from './get-api-key.js';
import { principalChanges } from '../principal-changes.js';

/**
 * Revokes a key at once: the tenant's auth version is bumped (ADR 0119), so every gateway
 * replica asks AuthenticateApiKey again and refuses it from the next request on; a rolled value in its grace period stops with it.
 * Revoking twice keeps the first time. A key holding a permission the caller does not hold is
 * out of its reach (401004; ADR 0019).
 */
export async function revokeApiKey(deps: IdentityDeps, req: identity.ApiKeyRef, ctx: CallerContext): Promise<identity.ApiKey> {
  requireCaller(ctx);
  checkKeyId(req.id);
  const changes = principalChanges(deps);
  const revoked = await deps.db.transaction(async (tx) => {
    const { rows: found } = await tx.query<Pick<ApiKeyRow, 'permissions'>>(
      'SELECT permissions FROM api_keys WHERE id = $1 AND tenant_id = $2 AND environment = $3 FOR UPDATE',
      [req.id, ctx.tenantId, ctx.environment],
    );
    if (!found[0]) throw keyNotFound(req.id);
    requireReachable(found[0].permissions, ctx, { field: 'key_id', name: `API key ${req.id}` });
    const { rows } = await tx.query<ApiKeyRow>(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1
       RETURNING id, tenant_id, environment, name, prefix, key_hash, permissions, created_by, created_at, expires_at, revoked_at, last_used_at, rolled_at,
                 NULL::timestamptz AS previous_expires_at`,
      [req.id, deps.clock.now().toISOString()],
    );
    // Gateways may hold the key in their credential caches (ADR 0119).
    await changes.bump(ctx.tenantId);
    return rows[0]!;
  });
  await changes.settle();
  deps.logger.info({ key_id: req.id, revoked_by: ctx.principalId, request_id: ctx.requestId }, 'api key revoked');
  return toApiKey(revoked);
}
