import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { sha256Hex } from '@mp/kit';
import { DISPLAY_PREFIX_LENGTH, newApiKeyValue } from '../api-key-value.js';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { requireReachable } from '../permissions.js';
import { apiKeyColumns, toApiKey, type ApiKeyRow } from '../rows.js';
import { checkKeyId, keyNotFound } from './get-api-key.js';
import { principalChanges } from '../principal-changes.js';

/** How long the previous value keeps working when the request does not say (ADR 0010). */
export const DEFAULT_GRACE_PERIOD_SECONDS = 86_400;
/** The longest grace period: a week is enough to redeploy every consumer of a key. */
export const MAX_GRACE_PERIOD_SECONDS = 7 * 86_400;

/**
 * POST /api-keys/{id}/roll: the key gets a new value (shown once), keeping its id, name,
 * permissions and expiry. The previous value keeps working for the grace period, so consumers
 * can be moved over without downtime; a leaked key is rolled with grace 0 (or revoked).
 */
export async function rollApiKey(deps: IdentityDeps, req: identity.RollApiKeyRequest, ctx: CallerContext): Promise<identity.ApiKeyCreated> {
  requireCaller(ctx);
  checkKeyId(req.id);
  const grace = req.gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_PERIOD_SECONDS) {
    throw new DomainError('400003', {
      field: 'grace_period_seconds',
      detail: `grace_period_seconds must be 0 to ${MAX_GRACE_PERIOD_SECONDS} (7 days); got ${grace}.`,
      suggestion: 'Send a whole number of seconds up to 604800, or leave it out for 24 hours.',
    });
  }
  const key = newApiKeyValue(ctx.environment);
  const changes = principalChanges(deps);
  const result = await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const nowIso = now.toISOString();
    const { rows } = await tx.query<ApiKeyRow>(
      `SELECT ${apiKeyColumns('$4')} FROM api_keys k WHERE k.id = $1 AND k.tenant_id = $2 AND k.environment = $3 FOR UPDATE`,
      [req.id, ctx.tenantId, ctx.environment, nowIso],
    );
    const row = rows[0];
    if (!row) throw keyNotFound(req.id);
    // the new value is the key: only a caller holding all its permissions may have it (ADR 0019)
    requireReachable(row.permissions, ctx, { field: 'key_id', name: `API key ${row.id}` });
    if (row.revoked_at !== null || (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime())) {
      throw new DomainError('422103', {
        field: 'key_id',
        detail: `API key ${req.id} is ${row.revoked_at !== null ? 'revoked' : 'expired'}; only an active key can be rolled.`,
        suggestion: 'Create a new key with POST /api-keys instead.',
      });
    }
    if (grace > 0) {
      await tx.query('INSERT INTO api_key_previous_values (key_hash, key_id, prefix, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)', [
        row.key_hash,
        row.id,
        row.prefix,
        new Date(now.getTime() + grace * 1000).toISOString(),
        nowIso,
      ]);
    }
    await tx.query('UPDATE api_keys SET key_hash = $2, prefix = $3, rolled_at = $4 WHERE id = $1', [
      row.id,
      sha256Hex(key),
      key.slice(0, DISPLAY_PREFIX_LENGTH),
      nowIso,
    ]);
    const { rows: after } = await tx.query<ApiKeyRow>(`SELECT ${apiKeyColumns('$2')} FROM api_keys k WHERE k.id = $1`, [row.id, nowIso]);
    // Gateways may hold the old value with its former validity (ADR 0119).
    await changes.bump(ctx.tenantId);
    return after[0]!;
  });
  await changes.settle();
  deps.logger.info({ key_id: req.id, grace_period_seconds: grace, rolled_by: ctx.principalId, request_id: ctx.requestId }, 'api key rolled');
  return { apiKey: toApiKey(result), key };
}
