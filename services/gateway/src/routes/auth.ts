import { z } from 'zod';
import { anonymousContext } from '@mp/grpc';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentIdentity as present } from '../presenters-identity.js';
import { MAX_LENGTH, text } from '../bounds.js';
import { validate } from '../validate.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const loginBody = z.object({
  username: text(MAX_LENGTH.username).min(1),
  password: text(MAX_LENGTH.password).min(1),
  grant_type: z.literal('password'),
});

const refreshBody = z.object({ refresh_token: z.string().min(1).max(4000) });

/**
 * POST /auth/login and /auth/refresh (docs/rules.md#sign-in, docs/rules.md#token-refresh). `guard` applies the per-address
 * limit (429005) and then reads the (small) JSON body.
 */
export function authRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/auth/login',
      summary: 'Sign in with username and password; answers the token object.',
      tag: 'Authentication',
      auth: 'none',
      rateLimit: 'authentication',
      body: loginBody,
      response: api.token,
      errors: ['401006', '401007', '401008'],
    },
    async (ctx) => {
      const state = ctx.state;
      const body = validate(loginBody, state.body ?? {}, 'body');
      const token = await clients.identity.login(
        // ctx.ip is the TCP peer (app.proxy is false, so no client-supplied header can choose it):
        // identity locks failed sign-ins per account and source (ADR 0019).
        { username: body.username, password: body.password, environment: state.environment, clientAddress: ctx.ip },
        anonymousContext(state.requestId, state.environment),
      );
      ok(ctx, present.token(token));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/auth/refresh',
      summary: 'Exchange a refresh token for a new access token.',
      tag: 'Authentication',
      auth: 'none',
      rateLimit: 'authentication',
      body: refreshBody,
      response: api.token,
      errors: ['401002', '401003', '401006'],
    },
    async (ctx) => {
      const state = ctx.state;
      const body = validate(refreshBody, state.body ?? {}, 'body');
      const token = await clients.identity.refresh(
        { refreshToken: body.refresh_token, environment: state.environment },
        anonymousContext(state.requestId, state.environment),
      );
      ok(ctx, present.token(token));
    },
  );
}
