import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { accountDisabled } from '../credentials.js';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment, type Environment } from '../environment.js';
import { requireEnvironment, tenantPlan } from '../plans.js';
import { USER_COLUMNS, type UserRow } from '../rows.js';
import { revokeSessions, SESSION_COLUMNS, type SessionRow } from '../sessions.js';
import { issueTokens, REFRESH_TOKEN_SECONDS, REFRESH_TOKEN_TYPE } from '../tokens.js';
import { principalChanges } from '../principal-changes.js';

export interface RefreshClaims extends JWTPayload {
  sub: string;
  jti: string;
  tid: string;
  env: string;
  fam: string;
}

interface RefreshTokenRow {
  jti: string;
  user_id: string;
  family_id: string;
  environment: string;
  used_at: string | null;
  revoked_at: string | null;
}

const invalid = (detail = 'The refresh token is malformed, tampered with, or no longer valid.') =>
  new DomainError('401003', { field: 'refresh_token', detail, suggestion: 'Sign in again with POST /auth/login.' });

/** How far a token's `iat` may lie ahead of this replica's clock. */
export const MAX_CLOCK_SKEW_SECONDS = 60;

/**
 * Verifies a refresh token's signature, type, issuer and audience (401002 expired, 401003
 * otherwise), and refuses times identity never issues: `iat` in the future (beyond the clock
 * skew) or a lifetime over REFRESH_TOKEN_SECONDS.
 */
export async function verifyRefreshToken(deps: IdentityDeps, token: string, opts: { allowExpired?: boolean } = {}): Promise<RefreshClaims> {
  try {
    const { payload } = await jwtVerify(token, deps.keys.resolve, {
      algorithms: ['EdDSA'],
      issuer: deps.settings.issuer,
      audience: deps.settings.audience,
      typ: REFRESH_TOKEN_TYPE,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      currentDate: deps.clock.now(),
      // logout accepts an expired token: ending a session that already ended is harmless
      ...(opts.allowExpired ? { clockTolerance: Number.MAX_SAFE_INTEGER } : {}),
    });
    const { tid, env, fam } = payload as Partial<RefreshClaims>;
    if (typeof tid !== 'string' || typeof env !== 'string' || typeof fam !== 'string') throw invalid();
    if (payload.iat! > deps.clock.now().getTime() / 1000 + MAX_CLOCK_SKEW_SECONDS) throw invalid('The refresh token says it was issued in the future.');
    if (payload.exp! - payload.iat! > REFRESH_TOKEN_SECONDS) throw invalid('The refresh token lives longer than this service issues them.');
    return payload as RefreshClaims;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    if (err instanceof joseErrors.JWTExpired) {
      throw new DomainError('401002', { field: 'refresh_token', detail: 'The refresh token has expired.', suggestion: 'Sign in again with POST /auth/login.' });
    }
    throw invalid();
  }
}

/**
 * Rotates a refresh token: each works once and is replaced by a new one of the same session.
 * Presenting a used one means two parties hold it (a stolen copy, or a replay), so the whole
 * session is revoked and both must sign in again. `clientId` is the OAuth client that
 * authenticated at POST /oauth/token (null at POST /auth/refresh): a session's tokens are
 * refreshed only by the party they were issued to.
 */
export async function rotateRefreshToken(
  deps: IdentityDeps,
  token: string,
  environment: Environment,
  clientId: string | null,
): Promise<identity.TokenResponse> {
  const claims = await verifyRefreshToken(deps, token);
  if (claims.env !== environment) throw invalid('The refresh token was not issued for this environment.');

  const changes = principalChanges(deps);
  const outcome = await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    // FOR UPDATE: of two concurrent refreshes with one token, the second waits and then sees it used.
    const { rows } = await tx.query<RefreshTokenRow>(
      'SELECT jti, user_id, family_id, environment, used_at, revoked_at FROM refresh_tokens WHERE jti = $1 FOR UPDATE',
      [claims.jti],
    );
    const row = rows[0];
    if (!row || row.user_id !== claims.sub || row.family_id !== claims.fam || row.environment !== environment) return { kind: 'invalid' as const };
    const { rows: sessions } = await tx.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [row.family_id]);
    const session = sessions[0];
    const { rows: users } = await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [row.user_id]);
    const user = users[0];
    if (!session || !user) return { kind: 'invalid' as const };
    // A disabled account is told so, whatever became of the session (disabling ends it too).
    if (user.disabled) return { kind: 'disabled' as const };
    if (row.revoked_at !== null || session.revoked_at !== null) return { kind: 'invalid' as const };
    if ((session.client_id ?? null) !== clientId) return { kind: 'wrong_client' as const, oauth: session.client_id !== null };
    if (row.used_at !== null) {
      await revokeSessions(tx, { id: session.id }, 'refresh_token_reused', now, changes);
      return { kind: 'reused' as const, sessionId: session.id, userId: row.user_id };
    }
    requireEnvironment(await tenantPlan(tx, user.tenant_id), environment);
    await tx.query('UPDATE refresh_tokens SET used_at = $2 WHERE jti = $1', [row.jti, now.toISOString()]);
    // Permissions are read afresh, so a change made since sign-in takes effect at the next refresh;
    // an OAuth session never gets more than the user granted the client.
    const permissions = session.scope ? user.permissions.filter((p) => session.scope!.includes(p)) : user.permissions;
    const tokens = await issueTokens(
      deps,
      tx,
      { userId: user.id, tenantId: user.tenant_id, permissions, sessionId: session.id, clientId: session.client_id },
      environment,
    );
    return { kind: 'ok' as const, tokens };
  });
  await changes.settle();

  switch (outcome.kind) {
    case 'ok':
      return outcome.tokens;
    case 'disabled':
      throw accountDisabled();
    case 'reused':
      deps.logger.warn({ user_id: outcome.userId, session_id: outcome.sessionId }, 'refresh token reused; session revoked');
      throw invalid('The refresh token was already used; every token of this sign-in has been revoked.');
    case 'wrong_client':
      throw invalid(
        outcome.oauth
          ? 'This refresh token belongs to an OAuth application: refresh it at POST /oauth/token with the client credentials.'
          : 'This refresh token was not issued to this client.',
      );
    default:
      throw invalid();
  }
}

/** POST /auth/refresh (docs/rules.md#token-refresh), for sessions of a password sign-in. */
export async function refresh(deps: IdentityDeps, req: identity.RefreshRequest): Promise<identity.TokenResponse> {
  const environment = parseEnvironment(req.environment);
  if (!req.refreshToken) throw new DomainError('422101', { field: 'refresh_token', detail: 'refresh_token is required.', suggestion: 'Send refresh_token.' });
  return rotateRefreshToken(deps, req.refreshToken, environment, null);
}
