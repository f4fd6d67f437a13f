import type { Middleware } from 'koa';
import { concurrencyError, rateLimitError, rateLimitHeaders, type RateLimits } from '@mp/ratelimit';
import type { GatewayState } from '../state.js';

/**
 * Spec §8's per-caller limits on authenticated routes, counted per tenant and environment:
 * 100 requests per minute (429001) and 50 in flight (429004). X-RateLimit-* headers go on every
 * response of a limited route, success or not.
 */
export function limitTenant(limits: RateLimits): Middleware {
  return async (ctx, next) => {
    const state = ctx.state as GatewayState;
    const key = `${state.caller!.tenantId}:${state.environment}`;
    const verdict = await limits.consume('api', key);
    const headers = rateLimitHeaders(verdict);
    if (!verdict.allowed) throw rateLimitError(verdict);
    const slot = await limits.acquire(key);
    if (!slot.allowed) throw concurrencyError(limits.concurrency);
    try {
      await next();
    } finally {
      ctx.set(headers);
      await slot.release();
    }
  };
}

/**
 * Authentication endpoints (login, refresh, OAuth token): 10 per minute (429005) per client
 * address and environment — there is no tenant before sign-in.
 */
export function limitAuthentication(limits: RateLimits): Middleware {
  return async (ctx, next) => {
    const state = ctx.state as GatewayState;
    const verdict = await limits.consume('auth', `${ctx.ip}:${state.environment}`);
    if (!verdict.allowed) throw rateLimitError(verdict);
    try {
      await next();
    } finally {
      ctx.set(rateLimitHeaders(verdict));
    }
  };
}
