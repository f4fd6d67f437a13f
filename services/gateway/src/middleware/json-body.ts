import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { DomainError } from '@mp/errors';
import type { GatewayState } from '../state.js';

/**
 * Reads a JSON body up to the limit (spec §8: 5 MB → 400005). A body must be sent as
 * application/json and parse to a JSON object (400002 otherwise). Requests without a body pass.
 */
export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    const state = ctx.state as GatewayState;
    const length = ctx.request.length;
    const hasBody = (length !== undefined && length > 0) || ctx.get('transfer-encoding') !== '';
    if (!hasBody || !['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) return next();
    if (length !== undefined && length > limitBytes) {
      ctx.req.resume();
      throw new DomainError('400005', { detail: `The request body is ${length} bytes; the limit is ${limitBytes} bytes (5 MB).`, suggestion: 'Split the data into several requests, or use a batch upload of at most 5 MB.' });
    }
    if (!ctx.is('application/json')) {
      ctx.req.resume();
      throw new DomainError('400002', { field: 'Content-Type', detail: `Content-Type must be application/json; got "${ctx.get('content-type') || 'none'}".`, suggestion: 'Send the body as JSON with Content-Type: application/json.' });
    }
    let text: string;
    try {
      text = await getRawBody(ctx.req, { limit: limitBytes, encoding: 'utf8', ...(length !== undefined ? { length } : {}) });
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') {
        throw new DomainError('400005', { detail: `The request body exceeds the limit of ${limitBytes} bytes (5 MB).`, suggestion: 'Split the data into several requests of at most 5 MB.' });
      }
      throw new DomainError('400002', { detail: 'The request body could not be read completely.', suggestion: 'Send the whole body with a correct Content-Length.' });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new DomainError('400002', { detail: `The body is not valid JSON: ${(err as Error).message}.`, suggestion: 'Check the JSON syntax (quotes, commas, brackets) before sending.' });
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new DomainError('400002', { detail: 'The body must be a JSON object.', suggestion: 'Wrap the fields in an object: { "field": value }.' });
    }
    state.body = parsed;
    return next();
  };
}
