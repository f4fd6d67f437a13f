import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { sha256Hex } from '@mp/kit';
import type { ProjectsDeps } from './deps.js';

/** How long a key's first response is replayed (api-surface conventions). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** JSON with object keys sorted, so the same request always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Runs a creating write once per Idempotency-Key. The key row is inserted in the same transaction
 * as the write, so a concurrent request with the same key waits on it and then replays the stored
 * response; a refused write (any error) rolls the key back, so a corrected retry runs again.
 * Same key, different operation or body within 24 h: 409006. Without a key `create` just runs.
 */
export async function createOnce<T>(
  deps: ProjectsDeps,
  ctx: CallerContext,
  operation: string,
  request: unknown,
  create: (tx: Queryable) => Promise<T>,
): Promise<T> {
  const key = ctx.idempotencyKey;
  if (key === undefined) return deps.db.transaction(create);
  if (key.length > 255) {
    throw new DomainError('400003', {
      field: 'Idempotency-Key',
      detail: 'Idempotency-Key is at most 255 characters long.',
      suggestion: 'Use a UUID as the key.',
    });
  }
  // The principal is part of the hash: another caller's key collision is 409006, never a replay.
  const hash = sha256Hex(`${operation}\n${ctx.principalId}\n${canonical(request)}`);
  const now = deps.clock.now();
  const scope = [ctx.tenantId, ctx.environment, key];
  return deps.db.transaction(async (tx) => {
    // A key older than the window is forgotten, so it may be used again.
    await tx.query('DELETE FROM idempotency_keys WHERE tenant_id = $1 AND environment = $2 AND key = $3 AND created_at <= $4', [
      ...scope,
      new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString(),
    ]);
    const inserted = await tx.query(
      'INSERT INTO idempotency_keys (tenant_id, environment, key, request_hash, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
      [...scope, hash, now.toISOString()],
    );
    if (inserted.rowCount === 0) {
      const { rows } = await tx.query<{ request_hash: string; response: T }>(
        'SELECT request_hash, response FROM idempotency_keys WHERE tenant_id = $1 AND environment = $2 AND key = $3',
        scope,
      );
      if (rows[0]!.request_hash !== hash) {
        throw new DomainError('409006', {
          field: 'Idempotency-Key',
          detail: 'This Idempotency-Key was used in the last 24 hours for a different request.',
          suggestion: 'Use a new key for a new request; reuse a key only to retry the identical request.',
        });
      }
      return rows[0]!.response;
    }
    const result = await create(tx);
    await tx.query('UPDATE idempotency_keys SET response = $4 WHERE tenant_id = $1 AND environment = $2 AND key = $3', [...scope, JSON.stringify(result)]);
    return result;
  });
}

/** Deletes keys past the window (called by the periodic sweep). */
export async function purgeIdempotencyKeys(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM idempotency_keys WHERE created_at <= $1', [new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString()]);
  return rowCount;
}
