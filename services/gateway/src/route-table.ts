import type Router from '@koa/router';
import { createApp, type AppDeps } from './app.js';

/** One endpoint of the gateway: an HTTP method and a path with its `:param` placeholders. */
export interface GatewayRoute {
  method: string;
  path: string;
}

/**
 * Every endpoint the gateway answers, read from the routers that createApp itself mounts, so a
 * tool that must cover the whole API (the security fuzzer) sees a new route without being
 * edited. The dependencies are inert: building the routers only captures them, and no request is
 * ever served by this application.
 */
export function gatewayRoutes(): GatewayRoute[] {
  const inert = {} as AppDeps['clients'];
  const app = createApp({
    environment: 'live',
    clients: inert,
    jwt: {} as AppDeps['jwt'],
    ready: () => true,
    logger: {} as AppDeps['logger'],
    docsUrl: () => '',
    bodyLimits: {} as AppDeps['bodyLimits'],
    authBodyLimits: {} as AppDeps['authBodyLimits'],
    limits: {} as AppDeps['limits'],
  });
  const seen = new Set<string>();
  const routes: GatewayRoute[] = [];
  for (const middleware of app.middleware) {
    // @koa/router's routes() returns a dispatcher that carries its router.
    const router = (middleware as { router?: Router }).router;
    if (!router) continue;
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string') continue;
      // HEAD is added by the router for every GET; router.use() layers have no methods.
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
        const key = `${method} ${layer.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        routes.push({ method, path: layer.path });
      }
    }
  }
  return routes;
}
