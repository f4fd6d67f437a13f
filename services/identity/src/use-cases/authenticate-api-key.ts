import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { constantTimeEqual, sha256Hex } from '@mp/kit';
import { API_KEY_PATTERN } from '../api-key-value.js';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { API_KEY_COLUMNS, type ApiKeyRow } from '../rows.js';

/** last_used_at is written at most this often per key, so busy keys do not write on every call. */
const LAST_USED_RESOLUTION_MS = 60_000;

// One answer for every failure: the caller must not learn whether a key exists, was revoked,
// expired or belongs to the other environment.
const invalidKey = () =>
  new DomainError('401001', {
    field: null,
    detail: 'The API key is not valid.',
    suggestion: 'Send a valid, active API key of this environment in the X-API-Key header.',
  });

/** Checks an X-API-Key value for the gateway and returns who it stands for. */
export async function authenticateApiKey(deps: IdentityDeps, req: identity.AuthenticateApiKeyRequest): Promise<identity.Principal> {
  const environment = parseEnvironment(req.environment);
  if (!API_KEY_PATTERN.test(req.key)) throw invalidKey();
  const hash = sha256Hex(req.key);
  const { rows } = await deps.db.query<ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [hash]);
  const row = rows[0];
  const now = deps.clock.now();
  if (
    !row ||
    !constantTimeEqual(row.key_hash, hash) ||
    row.revoked_at !== null ||
    (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) ||
    row.environment !== environment
  ) {
    throw invalidKey();
  }
  if (row.last_used_at === null || Date.parse(row.last_used_at) <= now.getTime() - LAST_USED_RESOLUTION_MS) {
    await deps.db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)', [
      row.id,
      now.toISOString(),
      new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString(),
    ]);
  }
  return { tenantId: row.tenant_id, environment: row.environment, principalId: row.id, principalType: 'api_key', permissions: row.permissions, name: row.name };
}
