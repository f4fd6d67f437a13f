import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId, sha256Hex } from '@mp/kit';
import { DISPLAY_PREFIX_LENGTH, newApiKeyValue } from '../api-key-value.js';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { ALL_PERMISSIONS, isPermission } from '../permissions.js';
import { API_KEY_COLUMNS, toApiKey, type ApiKeyRow } from '../rows.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

export function checkPermissions(permissions: string[], ctx: CallerContext): string[] {
  if (permissions.length === 0) {
    throw new DomainError('422101', {
      field: 'permissions',
      detail: 'permissions must list at least one permission identifier.',
      suggestion: `Grant one or more of: ${ALL_PERMISSIONS.join(', ')}.`,
    });
  }
  permissions.forEach((p, i) => {
    if (!isPermission(p)) {
      throw new DomainError('422103', {
        field: `permissions[${i}]`,
        detail: `"${p}" is not a permission identifier.`,
        suggestion: `Use only: ${ALL_PERMISSIONS.join(', ')}.`,
      });
    }
  });
  // A key never grants more than its creator holds, so a narrow admin key cannot mint a wider one.
  permissions.forEach((p, i) => {
    if (!ctx.permissions.includes(p)) {
      throw new DomainError('401004', {
        field: `permissions[${i}]`,
        detail: `You cannot grant ${p}: you do not hold it yourself.`,
        suggestion: 'Grant only permissions you hold, or ask an administrator who holds them.',
      });
    }
  });
  return [...new Set(permissions)];
}

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
 * only its SHA-256 is stored (it has ~190 bits of entropy, so a fast hash is enough).
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
  const permissions = checkPermissions(req.permissions, ctx);
  const now = deps.clock.now();
  const expiresAt = checkExpiry(req.expiresAt, now);

  const key = newApiKeyValue(ctx.environment);
  const { rows } = await deps.db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, tenant_id, environment, name, prefix, key_hash, permissions, created_by, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${API_KEY_COLUMNS}`,
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
}
