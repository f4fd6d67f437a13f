import type { Middleware, ParameterizedContext } from 'koa';
import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { Environment } from './clients.js';

/** What the middleware chain leaves on ctx.state for route handlers. */
export interface GatewayState {
  requestId: string;
  environment: Environment;
  /** Set by authentication. */
  caller?: CallerContext;
  authMethod?: 'api_key' | 'bearer';
  /** Parsed JSON body (objects only). */
  body?: unknown;
  /** Set by authentication: the tenant's plan. */
  plan?: identity.Plan;
  /** Set by authentication: the principal as identity returned it (session id and OAuth client for bearer tokens). */
  principal?: identity.Principal;
}

/** A request's context with ctx.state typed as the middleware chain leaves it. */
export type GatewayContext = ParameterizedContext<GatewayState>;

/** A middleware of the gateway, reading and writing the typed ctx.state. */
export type GatewayMiddleware = Middleware<GatewayState>;
