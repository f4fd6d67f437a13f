import type { Middleware } from 'koa';
import { errors as joseErrors } from 'jose';
import { DomainError } from '@mp/errors';
import { anonymousContext } from '@mp/grpc';
import type { ServiceClients } from '../clients.js';
import type { JwtVerifier } from '../jwt-verifier.js';
import type { GatewayState } from '../state.js';

export type AuthMethods = 'api_key' | 'api_key_or_bearer';

/**
 * Establishes who is calling: `X-API-Key` (checked by the identity service, so a revoked key is
 * refused at once on every gateway replica) or `Authorization: Bearer` (verified here).
 * `methods` follows the Auth column of spec §4: the webhook endpoints take an API key only.
 */
export function authenticate(deps: { clients: ServiceClients; jwt: JwtVerifier }, methods: AuthMethods = 'api_key_or_bearer'): Middleware {
  return async (ctx, next) => {
    const state = ctx.state as GatewayState;
    const apiKey = ctx.get('x-api-key');
    const authorization = ctx.get('authorization');
    const traceparent = ctx.get('traceparent') || undefined;
    const idempotencyKey = ctx.get('idempotency-key') || undefined;
    if (apiKey) {
      const p = await deps.clients.identity.authenticateApiKey({ key: apiKey, environment: state.environment }, anonymousContext(state.requestId, state.environment));
      state.authMethod = 'api_key';
      state.caller = {
        requestId: state.requestId,
        tenantId: p.tenantId,
        environment: state.environment,
        principalId: p.principalId,
        principalType: 'api_key',
        permissions: p.permissions,
        ...(traceparent ? { traceparent } : {}),
        ...(idempotencyKey ? { idempotencyKey } : {}),
      };
      return next();
    }
    if (authorization) {
      if (methods === 'api_key') {
        throw new DomainError('401001', { field: 'X-API-Key', detail: 'This endpoint takes an API key; bearer tokens are not accepted here.', suggestion: 'Send an API key with system:admin permission in the X-API-Key header.' });
      }
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      if (!match) {
        throw new DomainError('401003', { field: 'Authorization', detail: 'The Authorization header must be "Bearer <token>".', suggestion: 'Send Authorization: Bearer followed by the access_token from POST /auth/login.' });
      }
      let claims;
      try {
        claims = await deps.jwt.verify(match[1]!, state.environment, state.requestId);
      } catch (err) {
        if (err instanceof joseErrors.JOSEError) {
          throw new DomainError('401003', { field: 'Authorization', detail: 'The access token was signed with a key this service does not know.', suggestion: 'Sign in again with POST /auth/login.' });
        }
        throw err;
      }
      state.authMethod = 'bearer';
      state.caller = {
        requestId: state.requestId,
        tenantId: claims.tid,
        environment: state.environment,
        principalId: claims.sub,
        principalType: 'user',
        permissions: claims.scope.split(' ').filter(Boolean),
        ...(traceparent ? { traceparent } : {}),
        ...(idempotencyKey ? { idempotencyKey } : {}),
      };
      return next();
    }
    throw new DomainError('401001', {
      field: methods === 'api_key' ? 'X-API-Key' : 'X-API-Key',
      detail: 'No credentials were sent.',
      suggestion: methods === 'api_key' ? 'Send your API key in the X-API-Key header.' : 'Send an API key in X-API-Key, or an access token as Authorization: Bearer <token>.',
    });
  };
}

/** Requires a permission identifier (spec §2.2) of the authenticated caller (401004 otherwise). */
export function requirePermission(permission: string): Middleware {
  return async (ctx, next) => {
    const caller = (ctx.state as GatewayState).caller;
    if (!caller) throw new Error('requirePermission used before authenticate');
    if (!caller.permissions.includes(permission)) {
      throw new DomainError('401004', { field: null, detail: `This request needs the ${permission} permission.`, suggestion: `Use a key or token granted ${permission}, or ask an administrator to add it.` });
    }
    return next();
  };
}
