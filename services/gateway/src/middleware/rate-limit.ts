import { finished, Stream } from 'node:stream';
import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { clientSource } from '@mp/kit';
import { concurrencyError, rateLimitError, rateLimitHeaders, type LimitKind, type RateLimits, type Verdict } from '@mp/ratelimit';
import type { GatewayContext, GatewayMiddleware } from '../state.js';

/** The unit of the rate limits on authenticated routes: the tenant in one environment (docs/rules.md#limits). */
export function tenantLimitKey(ctx: GatewayContext): string {
  const state = ctx.state;
  return `${state.caller!.tenantId}:${state.environment}`;
}

/** A plan's limits as the rate limiter takes them (0 = operator default). */
function planLimits(plan: identity.Plan | undefined) {
  const l = plan?.limits;
  return l ? { api: l.apiPerMinute, data_records: l.dataRecordsPerMinute, reports: l.reportsPerHour, concurrency: l.concurrentRequests } : {};
}

/**
 * The per-caller limits of docs/rules.md#limits on authenticated routes, counted per tenant and environment (every
 * key and user of the tenant share them, on every gateway replica through Redis): requests per
 * minute (429001; 100 by default) and requests in flight (429004; 50). A tenant's plan overrides
 * the operator defaults; it arrives with the principal, so a plan change applies from the next
 * request. X-RateLimit-* headers go on every response of a limited route, success or not; a 429
 * carries Retry-After as well.
 *
 * A streamed answer (a report download) holds its slot until it has been sent or its connection
 * has closed, not only until the handler returns: a client that opens downloads and stops
 * reading would otherwise hold connections and memory outside the limit.
 */
export function limitTenant(limits: RateLimits): GatewayMiddleware {
  return async (ctx, next) => {
    const key = tenantLimitKey(ctx);
    limits.setPlan(key, planLimits(ctx.state.plan));
    const verdict = await limits.consume('api', key);
    const headers = rateLimitHeaders(verdict);
    if (!verdict.allowed) throw rateLimitError(verdict);
    const slot = await limits.acquire(key);
    // The refusal carries the concurrency limit's own headers (50 allowed, 0 remaining).
    if (!slot.allowed) throw concurrencyError(limits.concurrencyFor(key));
    let heldBySend = false;
    try {
      await next();
      if (ctx.body instanceof Stream) {
        heldBySend = true;
        const cleanup = finished(ctx.res, () => {
          cleanup();
          void slot.release();
        });
      }
    } finally {
      ctx.set(headers);
      if (!heldBySend) await slot.release();
    }
  };
}

/**
 * Counts `cost` units of a tenant limit other than requests — data records (429002), report
 * generations (429003) — against the tenant's plan, and refuses with the limit's code and
 * headers. For routes that count something besides the request itself; `field` names it.
 */
export async function consumeTenantLimit(
  ctx: GatewayContext,
  limits: RateLimits,
  kind: Exclude<LimitKind, 'api' | 'auth'>,
  cost = 1,
  field: string | null = null,
): Promise<Verdict> {
  const verdict = await limits.consume(kind, tenantLimitKey(ctx), cost);
  if (!verdict.allowed) {
    const err = rateLimitError(verdict);
    throw new DomainError(err.code, { field, detail: err.detail, suggestion: err.suggestion, headers: err.headers });
  }
  ctx.set(rateLimitHeaders(verdict));
  return verdict;
}

/**
 * Counts one unit of a tenant limit for an action that is counted only when it is accepted (a
 * report generation): the unit is taken first, so concurrent requests cannot pass the limit
 * together, and given back when `action` fails, so a refused request (403001, 404006, 422…)
 * does not use up the tenant's limit.
 */
export async function countIfAccepted<T>(
  ctx: GatewayContext,
  limits: RateLimits,
  kind: Exclude<LimitKind, 'api' | 'auth'>,
  action: () => Promise<T>,
): Promise<T> {
  const verdict = await consumeTenantLimit(ctx, limits, kind);
  try {
    return await action();
  } catch (err) {
    await limits.refund(kind, tenantLimitKey(ctx), 1, verdict.limit);
    throw err;
  }
}

/**
 * Authentication endpoints (login, refresh, logout, the OAuth token endpoint and consent form):
 * 10 per minute (429005) per client address — there is no tenant before sign-in, and the address
 * is what slows down a password guesser. One count for both environments: counted apart, a
 * guesser had twice the guesses by alternating the live and sandbox ports. Shared by all
 * replicas through Redis.
 */
export function limitAuthentication(limits: RateLimits): GatewayMiddleware {
  return async (ctx, next) => {
    // Per client source: an IPv6 client counts by its /64, as failed sign-ins do (ADR 0019).
    const verdict = await limits.consume('auth', clientSource(ctx.ip));
    if (!verdict.allowed) throw rateLimitError(verdict);
    try {
      await next();
    } finally {
      ctx.set(rateLimitHeaders(verdict));
    }
  };
}
