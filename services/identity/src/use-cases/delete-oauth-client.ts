import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { CLIENT_COLUMNS, clientNotFound, toOAuthClient, type OAuthClientRow } from '../oauth/clients.js';
import { requireReachable } from '../permissions.js';
import { revokeSessions } from '../sessions.js';
import { principalChanges } from '../principal-changes.js';

/**
 * DELETE /oauth/clients/{client_id}: the application can no longer sign anyone in, its pending
 * codes go, and every session granted to it ends (its tokens are refused from the next request).
 * Another tenant's or environment's client is reported as unknown (404012). A client registered by
 * a principal holding a permission the caller does not hold is out of its reach (401004; ADR 0063).
 */
export async function deleteOAuthClient(deps: IdentityDeps, req: identity.OAuthClientRef, ctx: CallerContext): Promise<identity.OAuthClient> {
  requireCaller(ctx);
  if (!isId('client', req.id)) {
    throw new DomainError('400004', {
      field: 'client_id',
      detail: 'client_id is not an OAuth client id (cli_…).',
      suggestion: 'Use the id returned by POST /oauth/clients.',
    });
  }
  const changes = principalChanges(deps);
  const row = await deps.db.transaction(async (tx) => {
    const { rows: found } = await tx.query<Pick<OAuthClientRow, 'creator_permissions'>>(
      'SELECT creator_permissions FROM oauth_clients WHERE id = $1 AND tenant_id = $2 AND environment = $3 FOR UPDATE',
      [req.id, ctx.tenantId, ctx.environment],
    );
    if (!found[0]) throw clientNotFound(req.id);
    requireReachable(found[0].creator_permissions, ctx, { field: 'client_id', name: `OAuth client ${req.id}` });
    const { rows } = await tx.query<OAuthClientRow>(`DELETE FROM oauth_clients WHERE id = $1 RETURNING ${CLIENT_COLUMNS}`, [req.id]);
    await revokeSessions(tx, { clientId: req.id }, 'client_deleted', deps.clock.now(), changes);
    return rows[0];
  });
  await changes.settle();
  deps.logger.info({ client_id: req.id, deleted_by: ctx.principalId, request_id: ctx.requestId }, 'oauth client deleted');
  return toOAuthClient(row);
}
