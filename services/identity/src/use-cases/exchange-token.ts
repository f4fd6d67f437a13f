import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { sha256Hex } from '@mp/kit';
import { accountDisabled } from '../credentials.js';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment, type Environment } from '../environment.js';
import { authenticateClient } from '../oauth/client-auth.js';
import type { OAuthClientRow } from '../oauth/clients.js';
import { verifierMatches } from '../oauth/pkce.js';
import { requireEnvironment, requireFeature, tenantPlan } from '../plans.js';
import { USER_COLUMNS, type UserRow } from '../rows.js';
import { openSession, revokeSessions } from '../sessions.js';
import { issueTokens } from '../tokens.js';
import { rotateRefreshToken } from './refresh.js';
import { principalChanges } from '../principal-changes.js';

interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  environment: string;
  redirect_uri: string;
  scope: string[];
  code_challenge: string | null;
  expires_at: string;
  used_at: string | null;
  session_id: string | null;
}

// One answer for every unusable code (RFC 6749 `invalid_grant`): the caller learns nothing about
// which check failed. The catalogue has no code for an invalid grant; 401003 (invalid token) is
// the closest and the gateway adds error=invalid_grant (ADR 0010).
const invalidGrant = (field = 'code') =>
  new DomainError('401003', {
    field,
    detail: 'The authorization code is invalid, expired, already used, or was issued to another client or redirect URI.',
    suggestion: 'Send the user through GET /oauth/authorize again to get a new code.',
  });

const required = (field: string) => new DomainError('422101', { field, detail: `${field} is required.`, suggestion: `Send ${field}.` });

/**
 * POST /oauth/token (docs/rules.md#oauth): the authorization_code grant, and the refresh_token
 * grant for tokens of the code flow. The client authenticates first (401005); its plan must
 * license OAuth (403004).
 */
export async function exchangeToken(deps: IdentityDeps, req: identity.ExchangeTokenRequest): Promise<identity.TokenResponse> {
  const environment = parseEnvironment(req.environment);
  if (!req.grantType) throw required('grant_type');
  if (req.grantType !== 'authorization_code' && req.grantType !== 'refresh_token') {
    throw new DomainError('422103', {
      field: 'grant_type',
      detail: 'grant_type must be authorization_code or refresh_token.',
      suggestion: 'Send grant_type=authorization_code with the code.',
    });
  }
  if (!req.clientId)
    throw new DomainError('401005', {
      field: 'client_id',
      detail: 'client_id is required.',
      suggestion: 'Send the client credentials in the body or with HTTP Basic authentication.',
    });
  const client = await authenticateClient(deps, req.clientId, req.clientSecret, environment);
  const plan = await tenantPlan(deps.db, client.tenant_id);
  requireFeature(plan, 'oauth');
  requireEnvironment(plan, environment);

  if (req.grantType === 'refresh_token') {
    if (!req.refreshToken) throw required('refresh_token');
    return rotateRefreshToken(deps, req.refreshToken, environment, client.id);
  }
  if (!req.code) throw required('code');
  if (!req.redirectUri) throw required('redirect_uri');
  return redeemCode(deps, client, { code: req.code, redirectUri: req.redirectUri, codeVerifier: req.codeVerifier }, environment);
}

/**
 * A code works once, for the client and redirect URI it was issued to, before it expires, with
 * the PKCE verifier of its challenge (and only with one when it has a challenge: RFC 9700
 * §2.1.1). Presenting a used code again revokes the session its first use opened (RFC 6749
 * §4.1.2): the party replaying it may have stolen it.
 */
async function redeemCode(
  deps: IdentityDeps,
  client: OAuthClientRow,
  req: { code: string; redirectUri: string; codeVerifier: string | undefined },
  environment: Environment,
): Promise<identity.TokenResponse> {
  const changes = principalChanges(deps);
  const outcome = await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const { rows } = await tx.query<CodeRow>('SELECT * FROM oauth_codes WHERE code_hash = $1 FOR UPDATE', [sha256Hex(req.code)]);
    const code = rows[0];
    if (!code || code.client_id !== client.id || code.environment !== environment) return { kind: 'invalid' as const };
    if (code.used_at !== null) {
      if (code.session_id) await revokeSessions(tx, { id: code.session_id }, 'code_reused', now, changes);
      return { kind: 'reused' as const, sessionId: code.session_id };
    }
    if (Date.parse(code.expires_at) <= now.getTime() || code.redirect_uri !== req.redirectUri) return { kind: 'invalid' as const };
    if (code.code_challenge !== null ? !req.codeVerifier || !verifierMatches(req.codeVerifier, code.code_challenge) : req.codeVerifier) {
      return { kind: 'invalid' as const, field: 'code_verifier' };
    }
    const { rows: users } = await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [code.user_id]);
    const user = users[0];
    if (!user) return { kind: 'invalid' as const };
    if (user.disabled) return { kind: 'disabled' as const };
    // Never more than the user holds now, nor more than they granted.
    const permissions = code.scope.filter((p) => user.permissions.includes(p));
    const sessionId = await openSession(tx, { userId: user.id, tenantId: user.tenant_id, environment, clientId: client.id, scope: code.scope, now });
    await tx.query('UPDATE oauth_codes SET used_at = $2, session_id = $3 WHERE code_hash = $1', [code.code_hash, now.toISOString(), sessionId]);
    const tokens = await issueTokens(deps, tx, { userId: user.id, tenantId: user.tenant_id, permissions, sessionId, clientId: client.id }, environment);
    return { kind: 'ok' as const, tokens };
  });
  await changes.settle();
  switch (outcome.kind) {
    case 'ok':
      return outcome.tokens;
    case 'disabled':
      throw accountDisabled();
    case 'reused':
      deps.logger.warn({ client_id: client.id, session_id: outcome.sessionId }, 'authorization code reused; its tokens were revoked');
      throw invalidGrant();
    default:
      throw invalidGrant('field' in outcome && outcome.field ? outcome.field : 'code');
  }
}
