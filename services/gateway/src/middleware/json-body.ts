import { DomainError, excerpt } from '@mp/errors';
import type { GatewayMiddleware } from '../state.js';
import { announcesBody, readBody, refuseOversized, type BodyLimits } from './read-body.js';

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Reads a JSON body within `limits` (5 MB → 400005, docs/rules.md#body-limit). A body must be sent as
 * application/json and parse to a JSON object (400002 otherwise). Requests without a body pass.
 * Routes place it after their authentication and permission checks (ADR 0017).
 */
export function jsonBody(limits: BodyLimits): GatewayMiddleware {
  return async (ctx, next) => {
    const state = ctx.state;
    if (!announcesBody(ctx) || !BODY_METHODS.includes(ctx.method)) return next();
    refuseOversized(ctx, limits);
    if (!ctx.is('application/json')) {
      throw new DomainError('400002', {
        field: 'Content-Type',
        detail: `Content-Type must be application/json; got ${ctx.get('content-type') ? excerpt(ctx.get('content-type')) : 'none'}.`,
        suggestion: 'Send the body as JSON with Content-Type: application/json.',
      });
    }
    const text = (await readBody(ctx, limits)).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new DomainError('400002', {
        // V8's message quotes a few characters of the body; keep it short whatever V8 does.
        detail: `The body is not valid JSON: ${(err as Error).message.slice(0, 200)}.`,
        suggestion: 'Check the JSON syntax (quotes, commas, brackets) before sending.',
      });
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new DomainError('400002', { detail: 'The body must be a JSON object.', suggestion: 'Wrap the fields in an object: { "field": value }.' });
    }
    state.body = parsed;
    return next();
  };
}
