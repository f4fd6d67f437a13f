import type Router from '@koa/router';
import { z } from 'zod';
import { DomainError } from '@mp/errors';
import { anonymousContext } from '@mp/grpc';
import type { AppDeps } from '../deps.js';
import { ok } from '../envelope.js';
import { bearerToken } from '../middleware/authenticate.js';
import { boundPathParameters, PATH_PARAMETERS } from '../middleware/request-input.js';
import { presentIdentity as present } from '../presenters-identity.js';
import { validate } from '../validate.js';
import { oauthRoutes } from './oauth.js';
import { userRoutes } from './users.js';
import * as api from '../api/resources.js';
import { gatewayRouter, route, type RouteGuards } from '../api/route-spec.js';

const logoutBody = z.object({ refresh_token: z.string().min(1).max(4000).optional() });
const logoutAnswer = z.object({ session_id: z.string(), revoked_at: z.string() });
const jwksAnswer = z.object({ keys: z.array(z.record(z.string(), z.unknown())), issuer: z.string(), audience: z.string() });

/**
 * The identity area of the API beyond login and refresh (routes/auth.ts) and API keys
 * (routes/api-keys.ts): logout, JWKS, /me, users and OAuth 2.0. It is mounted ahead of the
 * application's other routes; each route here reads its own body, JSON or, for OAuth, HTML form
 * posts (consent page) and form-encoded token requests (RFC 6749), after its checks.
 */
export function identityRoutes(deps: AppDeps, guards: RouteGuards): ReturnType<Router['routes']> {
  const router = gatewayRouter(guards, { prefix: '/v3' });
  boundPathParameters(router, PATH_PARAMETERS);

  /**
   * POST /auth/logout: ends the session of the refresh token in the body, or of the bearer access
   * token sent (verified first). Its refresh tokens stop working and its access tokens are refused
   * from the next request on, on every replica.
   */
  route(
    router,
    {
      method: 'post',
      path: '/auth/logout',
      summary: 'End the session of a refresh token (or of the bearer access token sent).',
      tag: 'Authentication',
      auth: 'none',
      rateLimit: 'authentication',
      body: logoutBody,
      response: logoutAnswer,
      errors: ['401002', '401003'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(logoutBody, state.body ?? {}, 'body');
      const anonymous = anonymousContext(state.requestId, state.environment);
      let res;
      if (b.refresh_token) {
        res = await deps.clients.identity.logout({ environment: state.environment, refreshToken: b.refresh_token }, anonymous);
      } else if (ctx.get('authorization')) {
        const claims = await deps.jwt.verify(bearerToken(ctx.get('authorization')), state.environment, state.requestId);
        res = await deps.clients.identity.logout({ environment: state.environment, sessionId: claims.sid, userId: claims.sub }, anonymous);
      } else {
        throw new DomainError('422101', {
          field: 'refresh_token',
          detail: 'refresh_token is required (or send the access token of the session as Authorization: Bearer).',
          suggestion: 'Send the refresh_token you got from POST /auth/login.',
        });
      }
      ok(ctx, { session_id: res.sessionId, revoked_at: res.revokedAt });
    },
  );

  /** GET /auth/jwks: the public keys that verify access tokens (RFC 7517 JWK Set in `data`). */
  route(
    router,
    {
      method: 'get',
      path: '/auth/jwks',
      summary: 'The public keys (JWK Set) that verify access tokens.',
      tag: 'Authentication',
      auth: 'none',
      rateLimit: 'none',
      response: jwksAnswer,
    },
    async (ctx) => {
      const state = ctx.state;
      const res = await deps.clients.identity.getJwks({}, anonymousContext(state.requestId, state.environment));
      const set = JSON.parse(res.jwksJson) as { keys: unknown[] };
      // Short enough that a rotation reaches clients well within a token's 7200 s.
      ctx.set('Cache-Control', 'public, max-age=300');
      ok(ctx, { keys: set.keys, issuer: res.issuer, audience: res.audience });
    },
  );

  /** GET /me: the caller — user or API key — with tenant, environment, permissions in force and plan. */
  route(
    router,
    {
      method: 'get',
      path: '/me',
      summary: 'The caller: user or API key, tenant, environment, permissions in force and plan.',
      tag: 'Authentication',
      auth: 'api_key_or_bearer',
      rateLimit: 'tenant',
      response: api.me,
    },
    async (ctx) => {
      const state = ctx.state;
      const me = await deps.clients.identity.getMe({}, state.caller!);
      ok(ctx, present.me({ ...me, ...(state.principal?.clientId ? { clientId: state.principal.clientId } : {}) }));
    },
  );

  userRoutes(router, deps.clients);
  oauthRoutes(router, deps.clients, deps.docsUrl);
  return router.routes();
}
