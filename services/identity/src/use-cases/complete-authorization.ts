import type { identity } from '@mp/contracts';
import { DomainError, isDomainError } from '@mp/errors';
import { randomToken, sha256Hex } from '@mp/kit';
import { verifyCredentials } from '../credentials.js';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { redirectTo } from '../oauth/redirect-uri.js';
import { CODE_SECONDS, loadAuthorizationRequest, promptOf, type AuthorizationRequestRow } from '../oauth/requests.js';
import { requireEnvironment, requireFeature, tenantPlan } from '../plans.js';
import type { UserRow } from '../rows.js';

/** Sign-in failures shown on the page again (the form stays usable); anything else is an error page. */
const SHOWN_ON_PAGE = new Set(['401006', '401007', '401008', '422101', '403003']);

/**
 * POST /oauth/authorize: the consent page's answer. "deny" redirects with error=access_denied
 * (no sign-in needed to decline). "allow" signs the user in (the lockout, docs/rules.md#lockout,
 * applies here too), grants the requested permissions the user holds (never more: RFC 6749 §3.3
 * lets the server narrow the scope, and the token's `scope` says what was granted) and
 * redirects with a single-use code bound to the client, the redirect URI, the user, the granted
 * scope and the PKCE challenge. Each pending authorization is answered once.
 */
export async function completeAuthorization(deps: IdentityDeps, req: identity.CompleteAuthorizationRequest): Promise<identity.AuthorizationStep> {
  const environment = parseEnvironment(req.environment);
  const form = { requestId: req.requestId, csrfToken: req.csrfToken, environment };
  const pending = await loadAuthorizationRequest(deps.db, form, deps.clock.now());

  if (req.decision === 'deny') {
    await finish(deps, form, null);
    return {
      redirectLocation: redirectTo(pending.redirect_uri, { error: 'access_denied', error_description: 'The user declined the request.', state: pending.state }),
    };
  }
  if (req.decision !== 'allow') {
    throw new DomainError('400001', { field: 'decision', detail: 'decision must be "allow" or "deny".', suggestion: 'Use the buttons of the sign-in page.' });
  }

  let user: UserRow;
  try {
    user = await verifyCredentials(deps, req.username, req.password, req.clientAddress);
    if (user.tenant_id !== pending.tenant_id) {
      throw new DomainError('403003', {
        field: 'username',
        detail: `This account belongs to another organisation than ${pending.client_name}.`,
        suggestion: 'Sign in with an account of the organisation that registered the application.',
      });
    }
  } catch (err) {
    if (isDomainError(err) && SHOWN_ON_PAGE.has(err.code)) {
      return { prompt: promptOf(pending, req.csrfToken), errorCode: err.code, errorDetail: err.detail };
    }
    throw err;
  }
  const plan = await tenantPlan(deps.db, user.tenant_id);
  requireFeature(plan, 'oauth');
  requireEnvironment(plan, environment);

  const granted = pending.scope.filter((p) => user.permissions.includes(p));
  if (granted.length === 0) {
    await finish(deps, form, null);
    return {
      redirectLocation: redirectTo(pending.redirect_uri, {
        error: 'access_denied',
        error_description: 'The user holds none of the requested permissions.',
        state: pending.state,
      }),
    };
  }
  const code = randomToken(43);
  await finish(deps, form, { code, user, granted });
  deps.logger.info({ client_id: pending.client_id, user_id: user.id, scope: granted }, 'oauth authorization granted');
  return { redirectLocation: redirectTo(pending.redirect_uri, { code, state: pending.state }) };
}

/** Marks the pending authorization answered (once: a concurrent second answer fails) and stores the code. */
async function finish(
  deps: IdentityDeps,
  form: { requestId: string; csrfToken: string; environment: 'live' | 'sandbox' },
  grant: { code: string; user: UserRow; granted: string[] } | null,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const pending: AuthorizationRequestRow = await loadAuthorizationRequest(tx, form, now, { lock: true });
    await tx.query('UPDATE oauth_requests SET completed_at = $2 WHERE id = $1', [pending.id, now.toISOString()]);
    if (!grant) return;
    await tx.query(
      `INSERT INTO oauth_codes (code_hash, client_id, user_id, tenant_id, environment, redirect_uri, scope, code_challenge, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        sha256Hex(grant.code),
        pending.client_id,
        grant.user.id,
        grant.user.tenant_id,
        pending.environment,
        pending.redirect_uri,
        grant.granted,
        pending.code_challenge,
        now.toISOString(),
        new Date(now.getTime() + CODE_SECONDS * 1000).toISOString(),
      ],
    );
  });
}
