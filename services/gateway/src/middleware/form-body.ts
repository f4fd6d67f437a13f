import { DomainError } from '@mp/errors';
import type { GatewayMiddleware } from '../state.js';
import { jsonBody } from './json-body.js';
import { readBody, type BodyLimits } from './read-body.js';

/**
 * Reads a JSON body (jsonBody) or an `application/x-www-form-urlencoded` one: the OAuth
 * endpoints take both, the browser's consent form and RFC 6749 clients sending forms, and the
 * JSON of the API. Form fields become strings of `state.body`; a field given twice is
 * 400001 (RFC 6749 §3.2: "parameters MUST NOT be included more than once").
 */
export function jsonOrFormBody(limits: BodyLimits): GatewayMiddleware {
  const json = jsonBody(limits);
  return async (ctx, next) => {
    if (!ctx.is('application/x-www-form-urlencoded')) return json(ctx, next);
    const text = (await readBody(ctx, limits)).toString('utf8');
    const form: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(text)) {
      if (k in form) throw new DomainError('400001', { field: k, detail: `${k} is given more than once.`, suggestion: `Send ${k} once.` });
      form[k] = v;
    }
    ctx.state.body = form;
    return next();
  };
}
