import { createApp } from './app.js';
import type { AppDeps } from './deps.js';
import { routesOf, type GatewayRoute } from './api/routes-of.js';

export type { GatewayRoute };

/**
 * Every endpoint the gateway answers, read from the routers that createApp itself mounts, so a
 * tool that must cover the whole API (the security fuzzer, the OpenAPI drift test) sees a new
 * route without being edited. The dependencies are inert: building the routers only captures
 * them, and no request is ever served by this application.
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
  return routesOf(app);
}
