import { isDomainError, unexpectedError } from '@mp/errors';
import { currentTraceId, type Logger } from '@mp/kit';
import { errorBody } from '../envelope.js';
import { requestIdOf } from '../request-id.js';
import type { Environment } from '../clients.js';
import type { GatewayMiddleware } from '../state.js';
import { countRateLimitRefusal, observeRequest, routeOf } from '../metrics.js';

/**
 * Outermost middleware: gives the request its id (X-Request-Id and meta.request_id agree), turns
 * every failure into the error envelope, counts the request and writes its access line at info
 * (5xx at error). The line holds no header, query or body: nothing a secret could sit in. Its
 * client_address is the client as resolved through trusted proxies (ctx.ip, ADR 0075).
 */
export function requestContext(opts: { environment: Environment; docsUrl: () => string; logger: Logger }): GatewayMiddleware {
  return async (ctx, next) => {
    const state = ctx.state;
    state.requestId = requestIdOf(ctx.get('X-Request-Id') || undefined);
    state.environment = opts.environment;
    ctx.set('X-Request-Id', state.requestId);
    const started = performance.now();
    try {
      await next();
    } catch (err) {
      const domain = isDomainError(err) ? err : unexpectedError(err, state.requestId);
      if (!isDomainError(err)) opts.logger.error({ err, request_id: state.requestId }, 'unhandled error');
      ctx.status = domain.httpStatus;
      // Every limit refuses with its own 429xxx code, whichever middleware or route applied it.
      if (domain.httpStatus === 429) countRateLimitRefusal(domain.code);
      for (const [k, v] of Object.entries(domain.headers)) ctx.set(k, v);
      ctx.body = errorBody(domain, state.requestId, opts.docsUrl());
    }
    const seconds = (performance.now() - started) / 1000;
    const route = routeOf(ctx);
    observeRequest(opts.environment, ctx.method, route, ctx.status, seconds);
    const failed = ctx.status >= 500;
    // The line is built only when it will be written (a level above info writes none).
    if (!failed && !opts.logger.isLevelEnabled('info')) return;
    const traceId = currentTraceId(ctx.get('traceparent') || undefined);
    const line = {
      request_id: state.requestId,
      method: ctx.method,
      route,
      status: ctx.status,
      ms: Math.round(seconds * 10_000) / 10,
      env: opts.environment,
      client_address: ctx.ip,
      ...(traceId ? { trace_id: traceId } : {}),
      ...(state.caller?.tenantId ? { tenant_id: state.caller.tenantId } : {}),
    };
    if (failed) opts.logger.error(line, 'request');
    else opts.logger.info(line, 'request');
  };
}
