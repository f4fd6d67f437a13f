import type { Middleware } from 'koa';
import { isDomainError, DomainError } from '@mp/errors';
import type { Logger } from '@mp/kit';
import { errorBody } from '../envelope.js';
import { newRequestId } from '../request-id.js';
import type { Environment } from '../clients.js';
import type { GatewayState } from '../state.js';

/**
 * Outermost middleware: gives the request its id (X-Request-Id and meta.request_id agree), turns
 * every failure into the error envelope, and logs. Only 5xx is logged as an error.
 */
export function requestContext(opts: { environment: Environment; docsUrl: () => string; logger: Logger }): Middleware {
  return async (ctx, next) => {
    const state = ctx.state as GatewayState;
    state.requestId = newRequestId();
    state.environment = opts.environment;
    ctx.set('X-Request-Id', state.requestId);
    const started = performance.now();
    try {
      await next();
    } catch (err) {
      const domain = isDomainError(err) ? err : new DomainError('500001', { detail: `Internal error; quote request ${state.requestId} to support.` });
      if (!isDomainError(err)) opts.logger.error({ err, request_id: state.requestId }, 'unhandled error');
      ctx.status = domain.httpStatus;
      for (const [k, v] of Object.entries(domain.headers)) ctx.set(k, v);
      ctx.body = errorBody(domain, state.requestId, opts.docsUrl());
    }
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const line = { request_id: state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms, env: opts.environment };
    if (ctx.status >= 500) opts.logger.error(line, 'request');
    else opts.logger.debug(line, 'request');
  };
}
