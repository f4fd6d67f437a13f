import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { randomToken, sha256Hex } from '@mp/kit';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { clientNotFound, findClient } from '../oauth/clients.js';
import { S256_CHALLENGE } from '../oauth/pkce.js';
import { redirectTo } from '../oauth/redirect-uri.js';
import { REQUEST_SECONDS } from '../oauth/requests.js';
import { parseScope } from '../oauth/scope.js';
import { requireEnvironment, requireFeature, tenantPlan } from '../plans.js';

const MAX_STATE = 1000;

/**
 * GET /oauth/authorize (RFC 6749 §4.1.1, docs/rules.md#oauth). Problems with the client or the
 * redirect URI are raised as errors, which the gateway shows as an error page: redirecting to an
 * unverified URI would make the service an open redirector (RFC 6749 §4.1.2.1). Everything else
 * wrong is reported to the client by a redirect with `error`. A valid request opens a pending
 * authorization for the login and consent page, with a CSRF token bound to it.
 */
export async function beginAuthorization(deps: IdentityDeps, req: identity.BeginAuthorizationRequest): Promise<identity.AuthorizationStep> {
  const environment = parseEnvironment(req.environment);
  if (!req.clientId)
    throw new DomainError('400001', { field: 'client_id', detail: 'client_id is required.', suggestion: 'Start from the application: it builds this link.' });
  const client = await findClient(deps.db, req.clientId, environment);
  if (!client) throw clientNotFound(req.clientId);
  if (!req.redirectUri)
    throw new DomainError('400001', {
      field: 'redirect_uri',
      detail: 'redirect_uri is required.',
      suggestion: 'Start from the application: it builds this link.',
    });
  if (!client.redirect_uris.includes(req.redirectUri)) {
    throw new DomainError('422103', {
      field: 'redirect_uri',
      detail: 'redirect_uri is not registered for this application (it must match a registered URI exactly).',
      suggestion: 'The application must register this callback URL with POST /oauth/clients.',
    });
  }
  const plan = await tenantPlan(deps.db, client.tenant_id);
  requireFeature(plan, 'oauth', 'client_id');
  requireEnvironment(plan, environment);

  const state = req.state ?? null;
  const fail = (error: string, description: string): identity.AuthorizationStep => ({
    redirectLocation: redirectTo(req.redirectUri, { error, error_description: description, state }),
  });
  if (state !== null && state.length > MAX_STATE) return fail('invalid_request', `state is longer than ${MAX_STATE} characters.`);
  if (req.responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
  const scope = parseScope(req.scope);
  if (!scope) return fail('invalid_scope', 'scope must list one or more permission identifiers, separated by spaces.');
  if (req.codeChallenge !== undefined || req.codeChallengeMethod !== undefined) {
    if ((req.codeChallengeMethod ?? 'plain') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256.');
    if (!req.codeChallenge || !S256_CHALLENGE.test(req.codeChallenge))
      return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).');
  } else if (client.client_type === 'public') {
    return fail('invalid_request', 'This application is a public client: PKCE (code_challenge with S256) is required.');
  }

  const id = randomToken(32);
  const csrfToken = randomToken(43);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + REQUEST_SECONDS * 1000).toISOString();
  await deps.db.query(
    `INSERT INTO oauth_requests (id, csrf_hash, client_id, environment, redirect_uri, scope, state, code_challenge, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [id, sha256Hex(csrfToken), client.id, environment, req.redirectUri, scope, state, req.codeChallenge ?? null, now.toISOString(), expiresAt],
  );
  return {
    prompt: { requestId: id, csrfToken, clientId: client.id, clientName: client.name, scope, redirectUri: req.redirectUri, expiresAt },
  };
}
