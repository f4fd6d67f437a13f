import type { Queryable } from '@mp/db';
import { randomToken } from '@mp/kit';
import type { Environment } from './environment.js';
import type { PrincipalChanges } from './principal-changes.js';

export interface SessionRow {
  id: string;
  user_id: string;
  tenant_id: string;
  environment: Environment;
  client_id: string | null;
  scope: string[] | null;
  created_at: string;
  revoked_at: string | null;
}

export const SESSION_COLUMNS = 'id, user_id, tenant_id, environment, client_id, scope, created_at, revoked_at';

/** Why a session ended; kept for support and the logs. */
export type RevokeReason = 'logout' | 'refresh_token_reused' | 'code_reused' | 'client_deleted' | 'user_disabled' | 'password_changed' | 'password_reset';

/** Opens a session (one sign-in) and returns its id, the family of its refresh tokens. */
export async function openSession(
  tx: Queryable,
  s: { userId: string; tenantId: string; environment: Environment; clientId?: string | null; scope?: string[] | null; now: Date },
): Promise<string> {
  const id = randomToken(30);
  await tx.query('INSERT INTO sessions (id, user_id, tenant_id, environment, client_id, scope, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    id,
    s.userId,
    s.tenantId,
    s.environment,
    s.clientId ?? null,
    s.scope ?? null,
    s.now.toISOString(),
  ]);
  return id;
}

/**
 * Ends sessions: their refresh tokens stop working, and CheckSession refuses their access tokens
 * from the next request on (their tenants' auth versions bumped through `changes`, which the caller
 * settles after its commit). Revoking an ended session keeps its first time and reason.
 */
export async function revokeSessions(
  tx: Queryable,
  where: { id: string } | { clientId: string } | { userId: string },
  reason: RevokeReason,
  now: Date,
  changes: Pick<PrincipalChanges, 'bump'>,
): Promise<string[]> {
  const [column, value] = 'id' in where ? ['id', where.id] : 'clientId' in where ? ['client_id', where.clientId] : ['user_id', where.userId];
  const { rows } = await tx.query<{ id: string; tenant_id: string }>(
    `UPDATE sessions SET revoked_at = $2, revoke_reason = $3 WHERE ${column} = $1 AND revoked_at IS NULL RETURNING id, tenant_id`,
    [value, now.toISOString(), reason],
  );
  const ids = rows.map((r) => r.id);
  // Gateways may hold these sessions in their credential caches (ADR 0119).
  for (const tenantId of new Set(rows.map((r) => r.tenant_id))) await changes.bump(tenantId);
  if (ids.length > 0) {
    await tx.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = ANY ($1) AND revoked_at IS NULL', [ids, now.toISOString()]);
  }
  return ids;
}
