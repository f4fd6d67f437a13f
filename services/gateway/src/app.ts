import Koa from 'koa';
import Router from '@koa/router';
import { DomainError, excerpt } from '@mp/errors';
import type { Logger } from '@mp/kit';
import type { Environment, ServiceClients } from './clients.js';
import type { JwtVerifier } from './jwt-verifier.js';
import { clientAddress, TrustedProxies } from './client-address.js';
import { authenticate, requirePermission } from './middleware/authenticate.js';
import { closeWhenBodyUnread, securityHeaders } from './middleware/front-door.js';
import { closeStalledResponses } from './middleware/send-deadline.js';
import { jsonBody } from './middleware/json-body.js';
import type { BodyLimits } from './middleware/read-body.js';
import { requestContext } from './middleware/request-context.js';
import { boundPathParameters, PATH_PARAMETERS, requestInput } from './middleware/request-input.js';
import type { RateLimits } from '@mp/ratelimit';
import compose from 'koa-compose';
import { limitAuthentication, limitTenant } from './middleware/rate-limit.js';
import { alarmRoutes } from './routes/alarms.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { authRoutes } from './routes/auth.js';
import { consoleRoutes } from './routes/console.js';
import { dataRoutes } from './routes/data.js';
import { errorRoutes } from './routes/errors.js';
import { identityRoutes } from './routes/identity.js';
import { projectRoutes } from './routes/projects.js';
import { systemRoutes } from './routes/system.js';
import { reportRoutes } from './routes/reports.js';
import { webhookRoutes } from './routes/webhooks.js';
import { healthz, readyz, referenceRoutes } from './routes/reference.js';
import { openApiDocument } from './api/openapi.js';
import { routesOf } from './api/routes-of.js';
import { docsRoutes } from './docs/docs-routes.js';

export interface AppDeps {
  environment: Environment;
  clients: ServiceClients;
  jwt: JwtVerifier;
  /** True while this gateway process serves; false while it drains (its public /readyz then says 503). */
  ready: () => boolean;
  logger: Logger;
  /** `{docs_url}` of spec §7.1; a function because the port may be known only after listening. */
  docsUrl: () => string;
  /** Bodies of authenticated routes (5 MB) and of the anonymous ones: sign-in, refresh, logout, OAuth (64 KB). */
  bodyLimits: BodyLimits;
  authBodyLimits: BodyLimits;
  limits: RateLimits;
  /** MP_WEBHOOK_SOURCE_ADDRESSES: where webhook deliveries come from, for receivers to permit. */
  webhookSourceAddresses?: readonly string[];
  /** MP_TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client (none by default). */
  trustedProxies?: TrustedProxies;
  /** MP_SEND_STALL_TIMEOUT_MS: a streamed answer whose client takes nothing for this long is closed. */
  sendStallTimeoutMs?: number;
}

/** One Koa application per environment (live, sandbox); the environment is fixed by the port. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  // Koa's own error logging is replaced by the request-context middleware.
  app.silent = true;

  // Every authenticated route is also rate limited per tenant (429001, 429004), and reads its body
  // only after all of that and its permission check: an anonymous or refused request is answered
  // without its body being read (ADR 0017).
  const body = jsonBody(deps.bodyLimits);
  const authed = compose([authenticate(deps), limitTenant(deps.limits)]);
  // Webhooks: an API key or a user's session (the console), never an OAuth application's token (ADR 0055).
  const noAppTokens = compose([authenticate(deps, 'api_key_or_session'), limitTenant(deps.limits)]);
  const can = (permission: string) => compose([authed, requirePermission(permission), body]);
  const adminNoAppTokens = compose([noAppTokens, requirePermission('system:admin'), body]);
  // The anonymous endpoints count against the per-address limit (429005) before their small body is read.
  const authLimitThenBody = compose([limitAuthentication(deps.limits), jsonBody(deps.authBodyLimits)]);

  // The probes also answer without the /v3 prefix, for load balancers (operator paths, not in the reference).
  const health = new Router();
  health.get('/healthz', healthz);
  health.get('/readyz', readyz(deps.ready));

  const v3 = new Router({ prefix: '/v3' });
  boundPathParameters(v3, PATH_PARAMETERS);
  authRoutes(v3, deps.clients, authLimitThenBody);
  apiKeyRoutes(v3, deps.clients, can('system:admin'));
  projectRoutes(v3, deps.clients, can);
  dataRoutes(v3, deps.clients, can, deps.limits);
  alarmRoutes(v3, deps.clients, can);
  reportRoutes(v3, deps.clients, can, deps.limits);
  webhookRoutes(v3, deps.clients, adminNoAppTokens);
  errorRoutes(v3, authed, requirePermission('system:read'));
  systemRoutes(v3, deps, compose([authed, requirePermission('system:read')]));
  // Built on first request from the routes this application mounts, identity's included.
  let document: string | undefined;
  const openApiJson = () => (document ??= JSON.stringify(openApiDocument(routesOf(app).flatMap((r) => (r.spec ? [r.spec] : [])))));
  referenceRoutes(v3, { ready: deps.ready, openApiJson });

  // Koa's own proxy trust (app.proxy) would believe X-Forwarded-For from any peer; the client is
  // resolved here instead, from trusted proxies only, before anything counts or logs it.
  app.use(clientAddress(deps.trustedProxies ?? new TrustedProxies([])));
  app.use(securityHeaders);
  app.use(closeWhenBodyUnread);
  app.use(closeStalledResponses(deps.sendStallTimeoutMs ?? 30_000));
  app.use(requestContext({ environment: deps.environment, docsUrl: deps.docsUrl, logger: deps.logger }));
  app.use(requestInput());
  app.use(identityRoutes(deps));
  app.use(consoleRoutes(deps));
  app.use(health.routes());
  app.use(v3.routes());
  app.use(v3.allowedMethods({ throw: true, notImplemented: () => notFound(), methodNotAllowed: () => notFound() }));
  app.use(docsRoutes());
  app.use(async (ctx) => {
    throw new DomainError('404015', {
      field: 'path',
      detail: `No endpoint ${ctx.method} ${excerpt(ctx.path, 200)}.`,
      suggestion: 'Check the method and path against the API reference (/docs, or GET /v3/openapi.json); paths start with /v3.',
    });
  });
  return app;
}

function notFound(): Error {
  return new DomainError('400001', {
    field: 'method',
    detail: 'This method is not defined for the path.',
    suggestion: 'Check the method against the API reference.',
  });
}
