import type { Middleware } from 'koa';
import type { RateLimits } from '@mp/ratelimit';
import type { ServiceClients } from '../clients.js';
import type { CredentialCache } from '../credential-cache.js';
import type { JwtVerifier } from '../jwt-verifier.js';
import { authenticate, requireAnyPermission, requireFeature, requirePermission } from '../middleware/authenticate.js';
import { jsonOrFormBody } from '../middleware/form-body.js';
import { jsonBody } from '../middleware/json-body.js';
import { limitAuthentication, limitTenant } from '../middleware/rate-limit.js';
import type { BodyLimits } from '../middleware/read-body.js';
import type { RouteGuards, RouteSpec } from './route-spec.js';

export interface RouteGuardDeps {
  clients: ServiceClients;
  jwt: JwtVerifier;
  /** The replica's credential cache (ADR 0119); absent: identity is asked on every request. */
  credentials?: CredentialCache;
  limits: RateLimits;
  /** Bodies of authenticated routes, and of the anonymous ones (sign-in, refresh, logout, OAuth). */
  bodyLimits: BodyLimits;
  authBodyLimits: BodyLimits;
}

/**
 * The guards of every route, from its spec. An authenticated route authenticates, counts against
 * the tenant's limits, checks its permission and plan feature (and route() adds the route's own
 * checks), and only then reads its body, so a refused request is answered without its body being
 * read (ADR 0017); an anonymous rate-limited
 * one counts against the per-address limit before reading its small body; a public document has
 * none. One chain per kind of route is built here and shared by every route of that kind.
 */
export function routeGuards(deps: RouteGuardDeps): RouteGuards {
  const reader = (limits: BodyLimits, form: boolean) => (form ? jsonOrFormBody(limits) : jsonBody(limits));
  const readers = new Map<string, Middleware>();
  const bodyOf = (anonymous: boolean, form: boolean) => {
    const key = `${anonymous}:${form}`;
    if (!readers.has(key)) readers.set(key, reader(anonymous ? deps.authBodyLimits : deps.bodyLimits, form));
    return readers.get(key)!;
  };
  const tenant = limitTenant(deps.limits);
  const address = limitAuthentication(deps.limits);
  // Webhooks take an API key or a user's session, never an OAuth application's token (ADR 0055).
  const authenticators = {
    api_key: authenticate(deps, 'api_key'),
    api_key_or_bearer: authenticate(deps, 'api_key_or_bearer'),
    api_key_or_user_bearer: authenticate(deps, 'api_key_or_session'),
  };
  const permissions = new Map<string, Middleware>();
  const features = new Map<string, Middleware>();

  return (spec: RouteSpec) => {
    const checks: Middleware[] = [];
    if (spec.auth !== 'none') checks.push(authenticators[spec.auth]);
    if (spec.rateLimit === 'tenant') checks.push(tenant);
    if (spec.rateLimit === 'authentication') checks.push(address);
    if (spec.permission) {
      if (!permissions.has(spec.permission)) permissions.set(spec.permission, requirePermission(spec.permission));
      checks.push(permissions.get(spec.permission)!);
    }
    if (spec.anyPermission) {
      const key = spec.anyPermission.join(' ');
      if (!permissions.has(key)) permissions.set(key, requireAnyPermission(spec.anyPermission));
      checks.push(permissions.get(key)!);
    }
    if (spec.feature) {
      if (!features.has(spec.feature)) features.set(spec.feature, requireFeature(spec.feature));
      checks.push(features.get(spec.feature)!);
    }
    const readsBody = (spec.auth !== 'none' || spec.rateLimit === 'authentication') && !spec.rawBody;
    return { checks, body: readsBody ? [bodyOf(spec.auth === 'none', spec.form === true)] : [] };
  };
}
