import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { revokeSessions, SESSION_COLUMNS, type SessionRow } from '../sessions.js';
import { verifyRefreshToken } from './refresh.js';
import { principalChanges } from '../principal-changes.js';

const invalid = (field: string) =>
  new DomainError('401003', {
    field,
    detail: 'The token does not name an open session of this environment.',
    suggestion: 'Nothing to sign out of; sign in again if needed.',
  });

/**
 * POST /auth/logout: ends the session named by a refresh token (its signature checked; an expired
 * one is accepted) or by the gateway-verified access token. The session's refresh-token family is
 * revoked and its access tokens are refused from the next request on. Signing out twice answers
 * the first time.
 */
export async function logout(deps: IdentityDeps, req: identity.LogoutRequest): Promise<identity.LogoutResponse> {
  const environment = parseEnvironment(req.environment);
  let sessionId: string;
  let userId: string;
  let field: string;
  if (req.refreshToken) {
    const claims = await verifyRefreshToken(deps, req.refreshToken, { allowExpired: true });
    if (claims.env !== environment) throw invalid('refresh_token');
    [sessionId, userId, field] = [claims.fam, claims.sub, 'refresh_token'];
  } else if (req.sessionId && req.userId) {
    [sessionId, userId, field] = [req.sessionId, req.userId, 'Authorization'];
  } else {
    throw new DomainError('422101', {
      field: 'refresh_token',
      detail: 'refresh_token is required.',
      suggestion: 'Send the refresh_token of the session to end.',
    });
  }
  const changes = principalChanges(deps);
  const ended = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<SessionRow & { revoked_at: string | null }>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1 FOR UPDATE`, [
      sessionId,
    ]);
    const session = rows[0];
    if (!session || session.user_id !== userId || session.environment !== environment) throw invalid(field);
    const now = deps.clock.now();
    await revokeSessions(tx, { id: session.id }, 'logout', now, changes);
    return { sessionId: session.id, revokedAt: session.revoked_at ?? now.toISOString() };
  });
  await changes.settle();
  return ended;
}
