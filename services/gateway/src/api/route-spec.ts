import Router, { type RouterMiddleware, type RouterOptions } from '@koa/router';
import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { Permission } from '@mp/contracts';
import type { GatewayState } from '../state.js';

/**
 * Who may call a route: nobody in particular, an API key or bearer token, an API key or a user's
 * own bearer token (not an OAuth application's: webhooks, ADR 0055), or an API key only.
 */
export type RouteAuth = 'none' | 'api_key_or_bearer' | 'api_key_or_user_bearer' | 'api_key';

/**
 * The limit a route counts against: the tenant's per-minute requests and concurrency (429001,
 * 429004), the per-address authentication limit (429005), or none (public documents).
 */
export type RouteRateLimit = 'tenant' | 'authentication' | 'none';

/**
 * What a success answers: the envelope around `response`, a bare JSON object, an HTML page, a
 * redirect, or a document download (the bytes themselves, with ETag and 304 on If-None-Match).
 */
export type RouteAnswer = 'envelope' | 'bare' | 'html' | 'redirect' | 'file';

/**
 * One route of the gateway as the API reference shows it. The route files declare it next to the
 * handler it documents; the OpenAPI document (api/openapi.ts) is generated from these and nothing
 * else, so a schema a handler validates with is the schema the document shows.
 */
export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa path below /v3 with `:param` placeholders. */
  path: string;
  /** One line for the reference; the first sentence is the operation's summary. */
  summary: string;
  /** The reference's section (Projects, Data, Webhooks, …). */
  tag: string;
  auth: RouteAuth;
  /** Permission identifier the caller needs, when one is: route() refuses a caller without it (401004). */
  permission?: Permission;
  /**
   * Any one of these permissions lets the caller in (401004 with none of them): for words every
   * reader needs, such as the sensor types. Set either this or `permission`.
   */
  anyPermission?: readonly Permission[];
  /** A feature of the tenant's plan the route needs: route() refuses a tenant without it (403004). */
  feature?: 'reports' | 'data_batches';
  /**
   * The body may also come form-encoded (application/x-www-form-urlencoded): the OAuth endpoints
   * that browsers and RFC 6749 clients post forms to.
   */
  form?: boolean;
  rateLimit: RouteRateLimit;
  /** Path parameters beyond the plain ids the path names (those are documented from the path). */
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  /**
   * The body is a file the handler streams itself (ctx.req), not JSON: no body reader runs, the
   * route answers 400002 for another content type and bounds the size itself (logger imports).
   */
  rawBody?: { contentTypes: readonly string[]; description: string };
  /** `data` of the success envelope (or the whole body for 'bare'). */
  response?: z.ZodType;
  /** Default 'envelope'. */
  answer?: RouteAnswer;
  /** Error codes this route answers beyond those that follow from auth, rate limit, body and path. */
  errors?: readonly string[];
  /** Fields this route's error answers carry beyond the envelope (the token endpoint's RFC 6749 `error`). */
  errorFields?: z.ZodObject;
  /** A status that changes here moves along this table (from → allowed targets). */
  transitions?: { field: string; table: Readonly<Record<string, readonly string[]>> };
  /** A creating write that honours Idempotency-Key (ADR 0012). */
  idempotent?: boolean;
  /**
   * The write takes the version it is based on from If-Match. Implied by a body with a `version`
   * field (either may carry it); set it where only the header can.
   */
  ifMatch?: boolean;
}

/** The route's handler carries its spec under this key, where the route table reads it back. */
export const ROUTE_SPEC = Symbol('mp.routeSpec');

/** A middleware of a registered route that knows what it documents. */
export type DocumentedMiddleware = Middleware & { [ROUTE_SPEC]?: RouteSpec };

/** What a route handler sees: ctx.state typed as the gateway's middleware chain leaves it. */
export type RouteMiddleware = RouterMiddleware<GatewayState>;

/**
 * What a route's spec implies ahead of its handler: the checks (authentication, rate limit,
 * permission, plan feature), then the body reader. Built once per application
 * (api/route-guards.ts), so a route states who may call it in its spec and nowhere else.
 */
export type RouteGuards = (spec: RouteSpec) => { checks: Middleware[]; body: Middleware[] };

const GUARDS = Symbol('mp.routeGuards');

/** A router whose routes get their guards from their specs (route()). */
export type GatewayRouter = Router<GatewayState> & { readonly [GUARDS]: RouteGuards };

/** A router (options as @koa/router's) that route() registers guarded routes on. */
export function gatewayRouter(guards: RouteGuards, options?: RouterOptions): GatewayRouter {
  return Object.assign(new Router<GatewayState>(options), { [GUARDS]: guards });
}

const AROUND = Symbol('mp.aroundGuards');

/**
 * Marks a middleware of route() that runs ahead of the route's guards, so that it sees their
 * refusals too: the OAuth endpoints render every refusal, a rate limit's included, as an HTML
 * page or an RFC 6749 error.
 */
export function aroundGuards(middleware: Middleware): Middleware {
  return Object.assign((ctx: Parameters<Middleware>[0], next: Parameters<Middleware>[1]) => middleware(ctx, next), { [AROUND]: true });
}

/**
 * Registers a route: the checks its spec implies (RouteGuards), then the given middleware but the
 * last (the route's own checks), then the body reader, so a refused request is answered without
 * its body being read (ADR 0017), then the handler, which is tagged with the spec for the route
 * table to read back.
 */
export function route(router: GatewayRouter, spec: RouteSpec, ...middleware: RouteMiddleware[]): void {
  const handler = middleware[middleware.length - 1]!;
  // A copy, so one handler function registered for two routes keeps both specs apart.
  const tagged: RouteMiddleware & { [ROUTE_SPEC]?: RouteSpec } = (ctx, next) => handler(ctx, next);
  tagged[ROUTE_SPEC] = spec;
  const extra = middleware.slice(0, -1);
  const isAround = (m: RouteMiddleware) => AROUND in m;
  const guards = router[GUARDS](spec);
  const chain = [...extra.filter(isAround), ...guards.checks, ...extra.filter((m) => !isAround(m)), ...guards.body, tagged] as RouteMiddleware[];
  (router[spec.method] as (path: string, ...m: RouteMiddleware[]) => unknown).call(router, spec.path, ...chain);
}

/**
 * A route as data: its spec, the route's own checks that run after those of its spec (rare), and
 * its handler. A table of these can be read (its specs, its permissions) without building a router.
 */
export interface Route {
  spec: RouteSpec;
  before?: readonly RouteMiddleware[];
  handler: RouteMiddleware;
}

/** Registers a table of routes, each as route() would. */
export function mount(router: GatewayRouter, routes: readonly Route[]): void {
  for (const r of routes) route(router, r.spec, ...(r.before ?? []), r.handler);
}
