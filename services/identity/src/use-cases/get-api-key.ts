import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { apiKeyColumns, toApiKey, type ApiKeyRow } from '../rows.js';

export function checkKeyId(id: string): void {
  if (!isId('apiKey', id)) {
    throw new DomainError('400004', {
      field: 'key_id',
      detail: 'key_id is not an API key id (key_…).',
      suggestion: 'Use the id returned when the key was created.',
    });
  }
}

// Another tenant's or environment's key is reported as missing: its existence is not revealed.
export const keyNotFound = (id: string) =>
  new DomainError('404010', { field: 'key_id', detail: `API key ${id} does not exist.`, suggestion: 'Check the key id, or list keys with GET /api-keys.' });

export async function getApiKey(deps: IdentityDeps, req: identity.ApiKeyRef, ctx: CallerContext): Promise<identity.ApiKey> {
  requireCaller(ctx);
  checkKeyId(req.id);
  const { rows } = await deps.db.query<ApiKeyRow>(`SELECT ${apiKeyColumns('$4')} FROM api_keys k WHERE k.id = $1 AND k.tenant_id = $2 AND k.environment = $3`, [
    req.id,
    ctx.tenantId,
    ctx.environment,
    deps.clock.now().toISOString(),
  ]);
  if (!rows[0]) throw keyNotFound(req.id);
  return toApiKey(rows[0]);
}
