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
}
