import Koa from 'koa';
import Router from '@koa/router';
import { DomainError, excerpt } from '@mp/errors';
import { clientAddress, TrustedProxies } from './client-address.js';
import type { AppDeps } from './deps.js';
import { closeWhenBodyUnread, securityHeaders } from './middleware/front-door.js';
import { closeStalledResponses } from './middleware/send-deadline.js';
import { requestContext } from './middleware/request-context.js';
import { boundPathParameters, PATH_PARAMETERS, requestInput } from './middleware/request-input.js';
import { alarmRoutes } from './routes/alarms.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { authRoutes } from './routes/auth.js';
import { consoleRoutes } from './routes/console.js';
import { dataRoutes } from './routes/data.js';
import { errorRoutes } from './routes/errors.js';
import { identityRoutes } from './routes/identity.js';
import { projectRoutes } from './routes/projects.js';
import { systemRoutes } from './routes/system.js';
import { sensorTypeRoutes } from './routes/sensor-types.js';
import { reportRoutes } from './routes/reports.js';
import { webhookRoutes } from './routes/webhooks.js';
import { notificationRoutes } from './routes/notifications.js';
import { importRoutes } from './routes/imports.js';
import { healthz, readyz, referenceRoutes } from './routes/reference.js';
import { openApiDocument } from './api/openapi.js';
import { routesOf } from './api/routes-of.js';
import { routeGuards } from './api/route-guards.js';
import { gatewayRouter, mount } from './api/route-spec.js';
import { docsRoutes } from './docs/docs-routes.js';

export type { AppDeps } from './deps.js';

/** One Koa application per environment (live, sandbox); the environment is fixed by the port. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  // Koa's own error logging is replaced by the request-context middleware.
  app.silent = true;

  // Each route's guards (authentication, rate limit, permission, plan feature, body) follow from its spec.
  const guards = routeGuards(deps);

  // The probes also answer without the /v3 prefix, for load balancers (operator paths, not in the reference).
  const health = new Router();
  health.get('/healthz', healthz);
  health.get('/readyz', readyz(deps.ready));

  const v3 = gatewayRouter(guards, { prefix: '/v3' });
  boundPathParameters(v3, PATH_PARAMETERS);
  authRoutes(v3, deps.clients);
  apiKeyRoutes(v3, deps.clients);
  projectRoutes(v3, deps.clients);
  dataRoutes(v3, deps.clients, deps.limits);
  alarmRoutes(v3, deps.clients);
  reportRoutes(v3, deps.clients, deps.limits);
  webhookRoutes(v3, deps.clients);
  notificationRoutes(v3, deps.clients);
  importRoutes(v3, deps.clients, deps.limits, deps.uploadTimeouts ?? { idleMs: 30_000, totalMs: 3_600_000 });
  mount(v3, errorRoutes);
  mount(v3, systemRoutes(deps));
  mount(v3, sensorTypeRoutes);
  // Built on first request from the routes this application mounts, identity's included.
  let document: string | undefined;
  const openApiJson = () => (document ??= JSON.stringify(openApiDocument(routesOf(app).flatMap((r) => (r.spec ? [r.spec] : [])))));
  mount(v3, referenceRoutes({ ready: deps.ready, openApiJson }));

  // Koa's own proxy trust (app.proxy) would believe X-Forwarded-For from any peer; the client is
  // resolved here instead, from trusted proxies only, before anything counts or logs it.
  app.use(clientAddress(deps.trustedProxies ?? new TrustedProxies([])));
  app.use(securityHeaders);
  app.use(closeWhenBodyUnread);
  app.use(closeStalledResponses(deps.sendStallTimeoutMs ?? 30_000));
  app.use(requestContext({ environment: deps.environment, docsUrl: deps.docsUrl, logger: deps.logger }));
  app.use(requestInput());
  app.use(identityRoutes(deps, guards));
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
