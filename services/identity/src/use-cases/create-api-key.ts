import type { identity } from '@mp/contracts';
import { createOnce, type Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId, sha256Hex } from '@mp/kit';
import { DISPLAY_PREFIX_LENGTH, newApiKeyValue } from '../api-key-value.js';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { checkGrantable } from '../permissions.js';
import { toApiKey, type ApiKeyRow } from '../rows.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function checkExpiry(value: string | undefined, now: Date): string | null {
  if (value === undefined || value === '') return null;
  const at = Date.parse(value);
  if (!ISO_8601.test(value) || Number.isNaN(at)) {
    throw new DomainError('400004', {
      field: 'expires_at',
      detail: 'expires_at must be an ISO 8601 timestamp with a time zone.',
      suggestion: 'Send e.g. 2027-01-31T00:00:00Z.',
    });
  }
  if (at <= now.getTime()) {
    throw new DomainError('422103', {
      field: 'expires_at',
      detail: 'expires_at must be in the future.',
      suggestion: 'Send a time after now, or leave expires_at out for a key that does not expire.',
    });
  }
  return new Date(at).toISOString();
}

/**
 * Creates an API key in the caller's tenant and environment. The value is returned here once;
 * only its SHA-256 is stored (it has ~190 bits of entropy, so a fast hash is enough). With an
 * Idempotency-Key the response is replayed for 24 h, value included: the replay table holds it
 * sealed with the master key, never in plain text (ADR 0012).
 */
export async function createApiKey(deps: IdentityDeps, req: identity.CreateApiKeyRequest, ctx: CallerContext): Promise<identity.ApiKeyCreated> {
  requireCaller(ctx);
  const name = req.name.trim();
  if (name.length < 1 || name.length > 100) {
    throw new DomainError('400003', {
      field: 'name',
      detail: `name must be 1 to 100 characters long; got ${name.length}.`,
      suggestion: 'Send a key name of 1 to 100 characters.',
    });
  }
  const permissions = checkGrantable(req.permissions, ctx);
  const now = deps.clock.now();
  const expiresAt = checkExpiry(req.expiresAt, now);

  const key = newApiKeyValue(ctx.environment);
  const insert = async (tx: Queryable): Promise<identity.ApiKeyCreated> => {
    const { rows } = await tx.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, tenant_id, environment, name, prefix, key_hash, permissions, created_by, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       RETURNING id, tenant_id, environment, name, prefix, key_hash, permissions, created_by, created_at, expires_at, revoked_at, last_used_at, rolled_at,
                 NULL::timestamptz AS previous_expires_at`,
      [
        newId('apiKey'),
        ctx.tenantId,
        ctx.environment,
        name,
        key.slice(0, DISPLAY_PREFIX_LENGTH),
        sha256Hex(key),
        permissions,
        ctx.principalId,
        now.toISOString(),
        expiresAt,
      ],
    );
    const row = rows[0]!;
    deps.logger.info(
      { key_id: row.id, tenant_id: row.tenant_id, environment: row.environment, created_by: ctx.principalId, request_id: ctx.requestId },
      'api key created',
    );
    return { apiKey: toApiKey(row), key };
  };
  return createOnce(deps.db, now, ctx, 'CreateApiKey', req, insert, { sealer: deps.secrets });
}
