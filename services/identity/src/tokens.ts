import { SignJWT } from 'jose';
import type { identity } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { randomToken } from '@mp/kit';
import type { IdentityDeps } from './deps.js';
import type { Environment } from './environment.js';

/** Access tokens live 7200 seconds (docs/rules.md#sign-in). */
export const ACCESS_TOKEN_SECONDS = 7200;
/** A refresh token lives 30 days, rotated on every use (ADR 0010). */
export const REFRESH_TOKEN_SECONDS = 30 * 86_400;

export const ACCESS_TOKEN_TYPE = 'at+jwt';
export const REFRESH_TOKEN_TYPE = 'rt+jwt';

export interface TokenSubject {
  userId: string;
  tenantId: string;
  /** The scope of the tokens: the user's permissions, or what they granted an OAuth client. */
  permissions: string[];
  /** The session (= refresh-token family) the tokens belong to. */
  sessionId: string;
  /** The OAuth client the session was granted to (RFC 9068 `client_id` claim). */
  clientId?: string | null;
}

/** Random token ids (base36, ~155 bits). */
export const newTokenId = () => randomToken(30);

/**
 * Signs an access token and a refresh token for `subject` in `environment` and records the
 * refresh token's jti in the session's family (inside the caller's transaction), so it can be
 * rotated once and its reuse detected. Both carry the session id (`sid`): the gateway asks
 * identity on every bearer request whether the session is still open.
 */
export async function issueTokens(deps: IdentityDeps, tx: Queryable, subject: TokenSubject, environment: Environment): Promise<identity.TokenResponse> {
  const { kid, key } = await deps.keys.signingKey(tx);
  const { issuer, audience } = deps.settings;
  const now = deps.clock.now();
  const iat = Math.floor(now.getTime() / 1000);
  const scope = subject.permissions.join(' ');
  const client = subject.clientId ? { client_id: subject.clientId } : {};

  const accessToken = await new SignJWT({ tid: subject.tenantId, env: environment, sid: subject.sessionId, scope, ...client })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: ACCESS_TOKEN_TYPE })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(subject.userId)
    .setJti(newTokenId())
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_SECONDS)
    .sign(key);

  const jti = newTokenId();
  const refreshToken = await new SignJWT({ tid: subject.tenantId, env: environment, fam: subject.sessionId, ...client })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: REFRESH_TOKEN_TYPE })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(subject.userId)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(iat + REFRESH_TOKEN_SECONDS)
    .sign(key);

  await tx.query(
    `INSERT INTO refresh_tokens (jti, user_id, tenant_id, environment, family_id, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [jti, subject.userId, subject.tenantId, environment, subject.sessionId, new Date((iat + REFRESH_TOKEN_SECONDS) * 1000).toISOString(), now.toISOString()],
  );

  return { accessToken, tokenType: 'Bearer', expiresIn: ACCESS_TOKEN_SECONDS, refreshToken, scope };
}
