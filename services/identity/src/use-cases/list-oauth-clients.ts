import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { CLIENT_COLUMNS, toOAuthClient, type OAuthClientRow } from '../oauth/clients.js';
import { newestFirst, pageOfRows } from '../paging.js';

/** GET /oauth/clients: the caller's tenant's clients in this environment, newest first. */
export async function listOAuthClients(deps: IdentityDeps, req: identity.ListOAuthClientsRequest, ctx: CallerContext): Promise<identity.OAuthClientList> {
  requireCaller(ctx);
  const params: unknown[] = [ctx.tenantId, ctx.environment];
  const where = ['tenant_id = $1', 'environment = $2'];
  const { limit, limitParam } = newestFirst(req.page, where, params);
  const { rows } = await deps.db.query<OAuthClientRow>(
    `SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limitParam}`,
    params,
  );
  return pageOfRows(rows, limit, toOAuthClient);
}
