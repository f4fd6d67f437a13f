import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { USER_COLUMNS, type UserRow } from '../rows.js';
import { issueTokens, REFRESH_TOKEN_TYPE } from '../tokens.js';

interface RefreshClaims extends JWTPayload {
  sub: string;
  jti: string;
  tid: string;
  env: string;
  fam: string;
}

interface RefreshTokenRow {
  jti: string;
  user_id: string;
  tenant_id: string;
  environment: string;
  family_id: string;
  used_at: string | null;
  revoked_at: string | null;
}

const invalid = (detail = 'The refresh token is malformed, tampered with, or no longer valid.') =>
  new DomainError('401003', { field: 'refresh_token', detail, suggestion: 'Sign in again with POST /auth/login.' });

async function verify(deps: IdentityDeps, token: string): Promise<RefreshClaims> {
  try {
    const { payload } = await jwtVerify(token, deps.keys.resolve, {
      algorithms: ['EdDSA'],
      issuer: deps.settings.issuer,
      audience: deps.settings.audience,
      typ: REFRESH_TOKEN_TYPE,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      currentDate: deps.clock.now(),
    });
    const { tid, env, fam } = payload as Partial<RefreshClaims>;
    if (typeof tid !== 'string' || typeof env !== 'string' || typeof fam !== 'string') throw invalid();
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
 * POST /auth/refresh (spec §5 rule 3) with rotation: each refresh token works once and is
 * replaced by a new one of the same family. Presenting a used one means two parties hold it
 * (a stolen copy, or a replay), so the whole family is revoked and both must sign in again.
 */
export async function refresh(deps: IdentityDeps, req: identity.RefreshRequest): Promise<identity.TokenResponse> {
  const environment = parseEnvironment(req.environment);
  if (!req.refreshToken) throw new DomainError('422101', { field: 'refresh_token', detail: 'refresh_token is required.' });
  const claims = await verify(deps, req.refreshToken);
  if (claims.env !== environment) throw invalid('The refresh token was not issued for this environment.');

  const outcome = await deps.db.transaction(async (tx) => {
    const now = deps.clock.now().toISOString();
    // FOR UPDATE: of two concurrent refreshes with one token, the second waits and then sees it used.
    const { rows } = await tx.query<RefreshTokenRow>('SELECT * FROM refresh_tokens WHERE jti = $1 FOR UPDATE', [claims.jti]);
    const row = rows[0];
    if (!row || row.user_id !== claims.sub || row.family_id !== claims.fam || row.environment !== environment) return { kind: 'invalid' as const };
    if (row.revoked_at !== null) return { kind: 'invalid' as const };
    if (row.used_at !== null) {
      await tx.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL', [row.family_id, now]);
      return { kind: 'reused' as const, familyId: row.family_id, userId: row.user_id };
    }
    const { rows: users } = await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [row.user_id]);
    const user = users[0];
    if (!user) return { kind: 'invalid' as const };
    if (user.disabled) return { kind: 'disabled' as const };
    await tx.query('UPDATE refresh_tokens SET used_at = $2 WHERE jti = $1', [row.jti, now]);
    // Permissions are read afresh, so a change made since sign-in takes effect at the next refresh.
    const tokens = await issueTokens(deps, tx, { userId: user.id, tenantId: user.tenant_id, permissions: user.permissions }, environment, row.family_id);
    return { kind: 'ok' as const, tokens };
  });

  switch (outcome.kind) {
    case 'ok':
      return outcome.tokens;
    case 'disabled':
      throw new DomainError('401006', { field: null, detail: 'This account has been disabled by an administrator.' });
    case 'reused':
      deps.logger.warn({ user_id: outcome.userId, family_id: outcome.familyId }, 'refresh token reused; token family revoked');
      throw invalid('The refresh token was already used; every token of this sign-in has been revoked.');
    default:
      throw invalid();
  }
}
