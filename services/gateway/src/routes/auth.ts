import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { anonymousContext } from '@mp/grpc';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentIdentity as present } from '../presenters-identity.js';
import { MAX_LENGTH, text } from '../bounds.js';
import type { GatewayState } from '../state.js';
import { validate } from '../validate.js';

const loginBody = z.object({
  username: text(MAX_LENGTH.username).min(1),
  password: text(MAX_LENGTH.password).min(1),
  grant_type: z.literal('password'),
});

const refreshBody = z.object({ refresh_token: z.string().min(1).max(4000) });

/**
 * POST /auth/login and /auth/refresh (spec §4, §5 rules 2–3). `guard` applies the per-address
 * limit (429005) and then reads the (small) JSON body.
 */
export function authRoutes(router: Router, clients: ServiceClients, guard: Middleware): void {
  router.post('/auth/login', guard, async (ctx) => {
    const state = ctx.state as GatewayState;
    const body = validate(loginBody, state.body ?? {}, 'body');
    const token = await clients.identity.login(
      // ctx.ip is the TCP peer (app.proxy is false, so no client-supplied header can choose it):
      // identity locks failed sign-ins per account and source (ADR 0019).
      { username: body.username, password: body.password, environment: state.environment, clientAddress: ctx.ip },
      anonymousContext(state.requestId, state.environment),
    );
    ok(ctx, present.token(token));
  });

  router.post('/auth/refresh', guard, async (ctx) => {
    const state = ctx.state as GatewayState;
    const body = validate(refreshBody, state.body ?? {}, 'body');
    const token = await clients.identity.refresh(
      { refreshToken: body.refresh_token, environment: state.environment },
      anonymousContext(state.requestId, state.environment),
    );
    ok(ctx, present.token(token));
  });
}
