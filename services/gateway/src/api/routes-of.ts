import type Router from '@koa/router';
import type Koa from 'koa';
import { ROUTE_SPEC, type DocumentedMiddleware, type RouteSpec } from './route-spec.js';

/** One endpoint an application answers: method, full path with `:param` placeholders, and its spec if declared. */
export interface GatewayRoute {
  method: string;
  path: string;
  spec?: RouteSpec;
}

/**
 * Every endpoint of the application, read from the routers it mounts (@koa/router's routes()
 * returns a dispatcher that carries its router), with the spec its handler carries (route()).
 */
export function routesOf(app: Koa): GatewayRoute[] {
  const seen = new Set<string>();
  const routes: GatewayRoute[] = [];
  for (const middleware of app.middleware) {
    const router = (middleware as { router?: Router }).router;
    if (!router) continue;
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string') continue;
      const spec = (layer.stack as DocumentedMiddleware[]).find((m) => m[ROUTE_SPEC])?.[ROUTE_SPEC];
      // HEAD is added by the router for every GET; router.use() layers have no methods.
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
        const key = `${method} ${layer.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        routes.push({ method, path: layer.path, ...(spec ? { spec } : {}) });
      }
    }
  }
  return routes;
}
