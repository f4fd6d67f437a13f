import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { newestFirst, pageOfRows } from '../paging.js';
import { apiKeyColumns, toApiKey, type ApiKeyRow } from '../rows.js';

/** The caller's keys in this environment, newest first, revoked and expired ones included. */
export async function listApiKeys(deps: IdentityDeps, req: identity.ListApiKeysRequest, ctx: CallerContext): Promise<identity.ApiKeyList> {
  requireCaller(ctx);
  const params: unknown[] = [deps.clock.now().toISOString(), ctx.tenantId, ctx.environment];
  const where = ['k.tenant_id = $2', 'k.environment = $3'];
  const { limit, limitParam } = newestFirst(req.page, where, params, 'k.');
  const { rows } = await deps.db.query<ApiKeyRow>(
    `SELECT ${apiKeyColumns('$1')} FROM api_keys k WHERE ${where.join(' AND ')} ORDER BY k.created_at DESC, k.id DESC LIMIT ${limitParam}`,
    params,
  );
  return pageOfRows(rows, limit, toApiKey);
}
