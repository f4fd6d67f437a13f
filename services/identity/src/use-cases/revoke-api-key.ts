import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { API_KEY_COLUMNS, toApiKey, type ApiKeyRow } from '../rows.js';
import { checkKeyId, keyNotFound } from './get-api-key.js';

/** Revokes a key at once (AuthenticateApiKey reads the row on every call). Revoking twice keeps the first time. */
export async function revokeApiKey(deps: IdentityDeps, req: identity.ApiKeyRef, ctx: CallerContext): Promise<identity.ApiKey> {
  requireCaller(ctx);
  checkKeyId(req.id);
  const { rows } = await deps.db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $4) WHERE id = $1 AND tenant_id = $2 AND environment = $3 RETURNING ${API_KEY_COLUMNS}`,
    [req.id, ctx.tenantId, ctx.environment, deps.clock.now().toISOString()],
  );
  if (!rows[0]) throw keyNotFound(req.id);
  deps.logger.info({ key_id: req.id, revoked_by: ctx.principalId, request_id: ctx.requestId }, 'api key revoked');
  return toApiKey(rows[0]);
}
