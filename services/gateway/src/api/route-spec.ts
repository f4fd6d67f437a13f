import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { z } from 'zod';

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
  /** Permission identifier of spec §2.2 the caller needs, when one is. */
  permission?: string;
  rateLimit: RouteRateLimit;
  /** Path parameters beyond the plain ids the path names (those are documented from the path). */
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
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

/**
 * Registers a route on the router exactly as `router[method](path, ...middleware)` would, and
 * tags its last middleware (the handler) with the spec.
 */
export function route(router: Router, spec: RouteSpec, ...middleware: Middleware[]): void {
  const handler = middleware[middleware.length - 1]!;
  // A copy, so one handler function registered for two routes keeps both specs apart.
  const tagged: DocumentedMiddleware = (ctx, next) => handler(ctx, next);
  tagged[ROUTE_SPEC] = spec;
  const chain = [...middleware.slice(0, -1), tagged];
  (router[spec.method] as (path: string, ...m: Middleware[]) => Router).call(router, spec.path, ...chain);
}
