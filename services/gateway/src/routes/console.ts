import Router from '@koa/router';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { DomainError } from '@mp/errors';
import { anonymousContext } from '@mp/grpc';
import type { AppDeps } from '../deps.js';
import { MAX_LENGTH, text } from '../bounds.js';
import { consoleAsset, consolePageHeaders } from '../console-assets.js';
import { ok } from '../envelope.js';
import { jsonBody } from '../middleware/json-body.js';
import { limitAuthentication } from '../middleware/rate-limit.js';
import type { GatewayContext } from '../state.js';
import { validate } from '../validate.js';

const signInBody = z.object({ username: text(MAX_LENGTH.username).min(1), password: text(MAX_LENGTH.password).min(1) });

/** The header only the console's own script sends (a cross-site form cannot set one; a cross-site fetch with it needs a CORS preflight this gateway never grants). */
export const CONSOLE_CSRF_HEADER = 'X-MP-Console';
/** Where the session endpoints live: the refresh cookie is sent to this path only. */
const SESSION_PATH = '/console/session';

/**
 * The refresh cookie's name. Live and sandbox listen on two ports of one host, and browsers do not
 * keep cookies apart by port, so each environment has its own name.
 */
export const refreshCookieName = (environment: string) => `__Secure-mp_console_refresh_${environment}`;

/**
 * CSRF defence of the cookie-reading endpoints (ADR 0055): the console's header must be present
 * and the browser's Origin must be this very origin (the Host the request was sent to). A
 * SameSite=Strict cookie is the third layer.
 */
const sameOriginConsole: Middleware = async (ctx, next) => {
  if (ctx.get(CONSOLE_CSRF_HEADER) !== '1') {
    throw new DomainError('400001', {
      field: CONSOLE_CSRF_HEADER,
      detail: `The console session endpoints take requests of the console only (header ${CONSOLE_CSRF_HEADER}: 1).`,
      suggestion: 'Sign in from the console at /console; scripts use POST /v3/auth/login or an API key.',
    });
  }
  const origin = ctx.get('origin');
  if (!origin || origin !== `https://${ctx.get('host')}`) {
    throw new DomainError('400001', {
      field: 'Origin',
      detail: origin ? 'The request came from another site.' : 'The request has no Origin header.',
      suggestion: 'Sign in from the console at /console of this base URL.',
    });
  }
  return next();
};

function setRefreshCookie(ctx: GatewayContext, environment: string, value: string): void {
  // A session cookie (no Max-Age): closing the browser ends the console session; identity enforces
  // the refresh token's own lifetime and rotation.
  ctx.append('Set-Cookie', `${refreshCookieName(environment)}=${value}; Path=${SESSION_PATH}; HttpOnly; Secure; SameSite=Strict`);
}

function clearRefreshCookie(ctx: GatewayContext, environment: string): void {
  ctx.append('Set-Cookie', `${refreshCookieName(environment)}=; Path=${SESSION_PATH}; Max-Age=0; HttpOnly; Secure; SameSite=Strict`);
}

/** What the console keeps in memory: the access token and when to renew it; never the refresh token. */
const sessionData = (t: { accessToken: string; expiresIn: number; scope: string }) => ({
  access_token: t.accessToken,
  token_type: 'Bearer',
  expires_in: t.expiresIn,
  scope: t.scope,
});

/**
 * The administration console: its static files at /console (both environments) and the three
 * endpoints of its cookie session (docs/rules.md#console-session: the refresh token in an HttpOnly cookie, the
 * access token in memory). docs/console.md describes them; ADR 0055 gives the reasons.
 */
export function consoleRoutes(deps: AppDeps): ReturnType<Router['routes']> {
  const router = new Router();
  const guard = compose([limitAuthentication(deps.limits), sameOriginConsole, jsonBody(deps.authBodyLimits)]);

  /** POST /console/session: sign in; the refresh token goes into the cookie, the access token into the answer. */
  router.post(SESSION_PATH, guard, async (ctx) => {
    const state = ctx.state;
    const body = validate(signInBody, state.body ?? {}, 'body');
    const token = await deps.clients.identity.login(
      { username: body.username, password: body.password, environment: state.environment, clientAddress: ctx.ip },
      anonymousContext(state.requestId, state.environment),
    );
    setRefreshCookie(ctx, state.environment, token.refreshToken);
    ok(ctx, sessionData(token));
  });

  /** POST /console/session/refresh: a new access token from the cookie, which is rotated. */
  router.post(`${SESSION_PATH}/refresh`, guard, async (ctx) => {
    const state = ctx.state;
    const refreshToken = ctx.cookies.get(refreshCookieName(state.environment));
    if (!refreshToken) {
      throw new DomainError('401003', {
        field: 'refresh_token',
        detail: 'There is no console session in this browser.',
        suggestion: 'Sign in at /console.',
      });
    }
    try {
      const token = await deps.clients.identity.refresh({ refreshToken, environment: state.environment }, anonymousContext(state.requestId, state.environment));
      setRefreshCookie(ctx, state.environment, token.refreshToken);
      ok(ctx, sessionData(token));
    } catch (err) {
      // A cookie that no longer works is dropped, so that the browser stops sending it.
      clearRefreshCookie(ctx, state.environment);
      throw err;
    }
  });

  /** POST /console/session/logout: ends the session of the cookie (every token of it) and drops the cookie. */
  router.post(`${SESSION_PATH}/logout`, guard, async (ctx) => {
    const state = ctx.state;
    const refreshToken = ctx.cookies.get(refreshCookieName(state.environment));
    clearRefreshCookie(ctx, state.environment);
    if (!refreshToken) return ok(ctx, { session_id: null, revoked_at: null });
    const res = await deps.clients.identity.logout({ environment: state.environment, refreshToken }, anonymousContext(state.requestId, state.environment));
    ok(ctx, { session_id: res.sessionId, revoked_at: res.revokedAt });
  });

  /** GET /console and its assets: the built single-page application (hash routes, so one index.html). */
  router.get(['/console', '/console/', '/console/assets/:file'], async (ctx) => {
    const asset = await consoleAsset(ctx.path === '/console' || ctx.path === '/console/' ? 'index.html' : `assets/${ctx.params.file}`);
    if (!asset) {
      throw new DomainError('400001', {
        field: 'path',
        detail: 'No such file of the console.',
        suggestion: 'Open /console; its files are loaded by the page itself.',
      });
    }
    consolePageHeaders(ctx, asset.immutable);
    ctx.type = asset.type;
    ctx.body = asset.body;
  });

  return router.routes();
}
