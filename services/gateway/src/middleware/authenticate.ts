import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { anonymousContext, type CallerContext } from '@mp/grpc';
import type { ServiceClients } from '../clients.js';
import { CredentialCache } from '../credential-cache.js';
import type { JwtVerifier } from '../jwt-verifier.js';
import type { GatewayContext, GatewayMiddleware } from '../state.js';

/**
 * `api_key_or_session`: an API key, or the bearer token of a user's own session (password sign-in,
 * the console); a token an OAuth application obtained is refused (the webhook endpoints, ADR 0055).
 */
export type AuthMethods = 'api_key' | 'api_key_or_bearer' | 'api_key_or_session';

/**
 * Establishes who is calling. Identity's answer may come from this replica's credential cache,
 * used only while the tenant's auth versions are those it was read at, so that a revocation still
 * applies at once on every gateway replica (ADR 0010, ADR 0119):
 * - `X-API-Key`: identity checks the key (revoked, expired, rolled past its grace period, other
 *   environment → 401001);
 * - `Authorization: Bearer`: the signature and claims are verified here (401002 expired, 401003
 *   otherwise), then identity confirms the session is open, the user enabled (401006) and gives
 *   the permissions in force — the token's scope narrowed to what the user still holds.
 * Either way identity returns the tenant's plan; a sandbox request of a tenant whose plan lacks
 * the sandbox is 403004. `methods` is an API key for the webhook endpoints
 * (docs/rules.md#webhook-access), widened to the console's user sessions (ADR 0055).
 */
export function authenticate(
  deps: { clients: ServiceClients; jwt: JwtVerifier; credentials?: CredentialCache },
  methods: AuthMethods = 'api_key_or_bearer',
): GatewayMiddleware {
  const cache = deps.credentials;
  return async (ctx, next) => {
    const state = ctx.state;
    const apiKey = ctx.get('x-api-key');
    const authorization = ctx.get('authorization');
    const anonymous = anonymousContext(state.requestId, state.environment);
    let principal: identity.Principal;
    if (apiKey) {
      const ask = () => deps.clients.identity.authenticateApiKey({ key: apiKey, environment: state.environment }, anonymous);
      principal = cache ? await cache.principal(CredentialCache.key('api_key', state.environment, apiKey), ask) : await ask();
      state.authMethod = 'api_key';
    } else if (authorization) {
      if (methods === 'api_key') {
        throw new DomainError('401001', {
          field: 'X-API-Key',
          detail: 'This endpoint takes an API key; bearer tokens are not accepted here.',
          suggestion: 'Send an API key with system:admin permission in the X-API-Key header.',
        });
      }
      const token = bearerToken(authorization);
      const claims = await deps.jwt.verify(token, state.environment, state.requestId);
      const ask = () =>
        deps.clients.identity.checkSession(
          {
            sessionId: claims.sid,
            userId: claims.sub,
            tenantId: claims.tid,
            environment: state.environment,
            scope: claims.scope.split(' ').filter(Boolean),
            ...(claims.client_id ? { clientId: claims.client_id } : {}),
          },
          anonymous,
        );
      principal = cache
        ? await cache.principal(CredentialCache.key('bearer', state.environment, token), ask, { tenantId: claims.tid, endsAt: claims.exp! * 1000 })
        : await ask();
      if (methods === 'api_key_or_session' && principal.clientId) {
        throw new DomainError('401001', {
          field: 'X-API-Key',
          detail: 'This endpoint takes an API key or a user session; tokens of OAuth applications are not accepted here.',
          suggestion: 'Send an API key with system:admin permission in the X-API-Key header.',
        });
      }
      state.authMethod = 'bearer';
    } else {
      throw new DomainError('401001', {
        field: 'X-API-Key',
        detail: 'No credentials were sent.',
        suggestion:
          methods === 'api_key'
            ? 'Send your API key in the X-API-Key header.'
            : 'Send an API key in X-API-Key, or an access token as Authorization: Bearer <token>.',
      });
    }
    state.caller = callerOf(ctx, principal, principal.principalType === 'api_key' ? 'api_key' : 'user');
    state.principal = principal;
    if (principal.plan) state.plan = principal.plan;
    return next();
  };
}

/** The token of an `Authorization: Bearer <token>` header (401003 for any other shape). */
export function bearerToken(authorization: string): string {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match) {
    throw new DomainError('401003', {
      field: 'Authorization',
      detail: 'The Authorization header must be "Bearer <token>".',
      suggestion: 'Send Authorization: Bearer followed by the access_token from POST /auth/login.',
    });
  }
  return match[1]!;
}

function callerOf(ctx: GatewayContext, p: identity.Principal, principalType: 'api_key' | 'user'): CallerContext {
  const state = ctx.state;
  const traceparent = ctx.get('traceparent') || undefined;
  const idempotencyKey = ctx.get('idempotency-key') || undefined;
  return {
    requestId: state.requestId,
    tenantId: p.tenantId,
    environment: state.environment,
    principalId: p.principalId,
    principalType,
    permissions: p.permissions,
    ...(traceparent ? { traceparent } : {}),
    ...(idempotencyKey ? { idempotencyKey } : {}),
  };
}

/**
 * Requires a permission identifier of the authenticated caller (401004 otherwise). This is where
 * the permission each route's spec names is enforced: route() puts it in the route's guards
 * (api/route-guards.ts); membership, roles and tenants (403001–403003) are the services' business.
 */
export function requirePermission(permission: string): GatewayMiddleware {
  return async (ctx, next) => {
    const caller = ctx.state.caller;
    if (!caller) throw new Error('requirePermission used before authenticate');
    if (!caller.permissions.includes(permission)) {
      throw new DomainError('401004', {
        field: null,
        detail: `This request needs the ${permission} permission.`,
        suggestion: `Use a key or token granted ${permission}, or ask an administrator to add it.`,
      });
    }
    return next();
  };
}

/** Requires any one of these permissions (401004 naming them when the caller holds none). */
export function requireAnyPermission(permissions: readonly string[]): GatewayMiddleware {
  return async (ctx, next) => {
    const caller = ctx.state.caller;
    if (!caller) throw new Error('requireAnyPermission used before authenticate');
    if (!permissions.some((p) => caller.permissions.includes(p))) {
      throw new DomainError('401004', {
        field: null,
        detail: `This request needs one of the permissions ${permissions.join(', ')}.`,
        suggestion: 'Use a key or token granted any of them, or ask an administrator to add one.',
      });
    }
    return next();
  };
}

const FEATURE_NAMES: Record<string, string> = {
  sandbox: 'The sandbox environment',
  oauth: 'OAuth 2.0 applications',
  reports: 'Report generation',
  data_batches: 'Batch data uploads',
};

/**
 * Requires a feature of the caller's tenant plan (403004 "feature not licensed" otherwise), e.g.
 * `requireFeature('reports')` on report generation. Use after authenticate.
 */
export function requireFeature(feature: 'sandbox' | 'oauth' | 'reports' | 'data_batches'): GatewayMiddleware {
  return async (ctx, next) => {
    const plan = ctx.state.plan;
    if (!plan) throw new Error('requireFeature used before authenticate');
    if (!plan.features.includes(feature)) {
      throw new DomainError('403004', {
        field: null,
        detail: `${FEATURE_NAMES[feature]} is not part of your plan (${plan.name}).`,
        suggestion: 'Ask your tenant administrator to move the tenant to a plan that includes it.',
      });
    }
    return next();
  };
}
