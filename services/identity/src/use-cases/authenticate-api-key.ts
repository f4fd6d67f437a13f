import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { constantTimeEqual, sha256Hex } from '@mp/kit';
import { API_KEY_PATTERN } from '../api-key-value.js';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { PLAN_COLUMNS, requireEnvironment, toPlan, type PlanRow } from '../plans.js';

/** last_used_at is written at most this often per key, so busy keys do not write on every call. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface KeyCheckRow extends PlanRow {
  id: string;
  tenant_id: string;
  environment: string;
  key_name: string;
  permissions: string[];
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** the stored hash the value matched: the current one, or a rolled one still in its grace period */
  matched_hash: string;
  grace_expires_at: string | null;
}

// One answer for every failure: the caller must not learn whether a key exists, was revoked,
// expired, was rolled or belongs to the other environment.
const invalidKey = () =>
  new DomainError('401001', {
    field: null,
    detail: 'The API key is not valid.',
    suggestion: 'Send a valid, active API key of this environment in the X-API-Key header.',
  });

/**
 * Checks an X-API-Key value for the gateway (on every request: a revocation applies at once on
 * every gateway replica) and returns who it stands for, with the tenant's plan. The value may be
 * the key's current one or, for the grace period after a roll, its previous one.
 */
export async function authenticateApiKey(deps: IdentityDeps, req: identity.AuthenticateApiKeyRequest): Promise<identity.Principal> {
  const environment = parseEnvironment(req.environment);
  if (!API_KEY_PATTERN.test(req.key)) throw invalidKey();
  const hash = sha256Hex(req.key);
  const { rows } = await deps.db.query<KeyCheckRow>(
    `SELECT k.id, k.tenant_id, k.environment, k.name AS key_name, k.permissions, k.expires_at, k.revoked_at, k.last_used_at,
            m.hash AS matched_hash, m.grace_expires_at, ${PLAN_COLUMNS}
       FROM (SELECT id AS key_id, key_hash AS hash, NULL::timestamptz AS grace_expires_at FROM api_keys WHERE key_hash = $1
             UNION ALL
             SELECT key_id, key_hash, expires_at FROM api_key_previous_values WHERE key_hash = $1) m
       JOIN api_keys k ON k.id = m.key_id
       JOIN tenants t ON t.id = k.tenant_id
       JOIN plans p ON p.name = t.plan
      LIMIT 1`,
    [hash],
    // Asked on every API-key request: planning this join costs more than running it.
    { prepare: 'identity_authenticate_api_key' },
  );
  const row = rows[0];
  const now = deps.clock.now();
  if (
    !row ||
    !constantTimeEqual(row.matched_hash, hash) ||
    row.revoked_at !== null ||
    (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) ||
    (row.grace_expires_at !== null && Date.parse(row.grace_expires_at) <= now.getTime()) ||
    row.environment !== environment
  ) {
    throw invalidKey();
  }
  const plan = toPlan(row);
  requireEnvironment(plan, environment);
  if (row.last_used_at === null || Date.parse(row.last_used_at) <= now.getTime() - LAST_USED_RESOLUTION_MS) {
    await deps.db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)', [
      row.id,
      now.toISOString(),
      new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString(),
    ]);
  }
  // When the value stops by itself: the key's expiry, or the end of a rolled value's grace period.
  const ends = [row.expires_at, row.grace_expires_at].filter((t): t is string => t !== null).map((t) => Date.parse(t));
  return {
    tenantId: row.tenant_id,
    environment,
    principalId: row.id,
    principalType: 'api_key',
    permissions: row.permissions,
    name: row.key_name,
    plan,
    ...(ends.length > 0 ? { validUntil: new Date(Math.min(...ends)).toISOString() } : {}),
    versionsStore: deps.authVersions.id,
  };
}
