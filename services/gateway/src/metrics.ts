import type { Context } from 'koa';
import { counter, DURATION_BUCKETS, histogram } from '@mp/kit';

/**
 * The gateway's request metrics (process registry, ADR 0036). `route` is the route template
 * (`/v3/projects/:project_id`), never the path, and `unmatched` for paths no route has: the label
 * set is bounded by the route table.
 */
const requests = counter({
  name: 'mp_http_requests_total',
  help: 'HTTP requests answered by the gateway, by environment, method, route template and status.',
  labelNames: ['env', 'method', 'route', 'status'],
});
const duration = histogram({
  name: 'mp_http_request_duration_seconds',
  help: 'Time from the request reaching the gateway to its answer, by route template.',
  labelNames: ['env', 'method', 'route'],
  buckets: DURATION_BUCKETS,
});
const rateLimited = counter({
  name: 'mp_rate_limit_refusals_total',
  help: 'Requests refused by a rate limit, by the limit (its error code: 429001 per minute, 429004 concurrent, 429005 per address, …).',
  labelNames: ['limit'],
});

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The matched route template (set by @koa/router), or `unmatched`. */
export function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}

export function observeRequest(env: string, method: string, route: string, status: number, seconds: number): void {
  // A client can send any method name; only the standard ones become label values.
  const m = KNOWN_METHODS.has(method) ? method : 'OTHER';
  requests.inc({ env, method: m, route, status: String(status) });
  duration.observe({ env, method: m, route }, seconds);
}

export function countRateLimitRefusal(code: string): void {
  rateLimited.inc({ limit: code });
}
