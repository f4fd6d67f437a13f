import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { API_KEY_COLUMNS, toApiKey, type ApiKeyRow } from '../rows.js';

/** The caller's keys in this environment, newest first, revoked and expired ones included. */
export async function listApiKeys(deps: IdentityDeps, req: identity.ListApiKeysRequest, ctx: CallerContext): Promise<identity.ApiKeyList> {
  requireCaller(ctx);
  const limit = pageLimit(req.page?.limit);
  const where = ['tenant_id = $1', 'environment = $2'];
  const params: unknown[] = [ctx.tenantId, ctx.environment];
  if (req.page?.cursor) {
    const [createdAt, id] = decodeCursor(req.page.cursor);
    if (typeof createdAt !== 'string' || typeof id !== 'string')
      throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
    params.push(createdAt, id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const { rows } = await deps.db.query<ApiKeyRow>(
    `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [r.created_at, r.id]);
  return { items: page.items.map(toApiKey), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
