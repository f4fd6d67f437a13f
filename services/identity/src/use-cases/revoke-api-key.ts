import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { toApiKey, type ApiKeyRow } from '../rows.js';
import { checkKeyId, keyNotFound } from './get-api-key.js';

/**
 * Revokes a key at once: AuthenticateApiKey reads the row on every request, so every gateway
 * replica refuses it from the next request on; a rolled value in its grace period stops with it.
 * Revoking twice keeps the first time.
 */
export async function revokeApiKey(deps: IdentityDeps, req: identity.ApiKeyRef, ctx: CallerContext): Promise<identity.ApiKey> {
  requireCaller(ctx);
  checkKeyId(req.id);
  const { rows } = await deps.db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $4) WHERE id = $1 AND tenant_id = $2 AND environment = $3
     RETURNING id, tenant_id, environment, name, prefix, key_hash, permissions, created_by, created_at, expires_at, revoked_at, last_used_at, rolled_at,
               NULL::timestamptz AS previous_expires_at`,
    [req.id, ctx.tenantId, ctx.environment, deps.clock.now().toISOString()],
  );
  if (!rows[0]) throw keyNotFound(req.id);
  deps.logger.info({ key_id: req.id, revoked_by: ctx.principalId, request_id: ctx.requestId }, 'api key revoked');
  return toApiKey(rows[0]);
}
