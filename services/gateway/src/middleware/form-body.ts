import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { DomainError } from '@mp/errors';
import type { GatewayState } from '../state.js';
import { jsonBody } from './json-body.js';

/**
 * Reads a JSON body (jsonBody) or an `application/x-www-form-urlencoded` one: the OAuth
 * endpoints take both, the browser's consent form and RFC 6749 clients sending forms, and the
 * specification's JSON. Form fields become strings of `state.body`; a field given twice is
 * 400001 (RFC 6749 §3.2: "parameters MUST NOT be included more than once").
 */
export function jsonOrFormBody(limitBytes: number): Middleware {
  const json = jsonBody(limitBytes);
  return async (ctx, next) => {
    if (!ctx.is('application/x-www-form-urlencoded')) return json(ctx, next);
    let text: string;
    try {
      text = await getRawBody(ctx.req, { limit: limitBytes, encoding: 'utf8' });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') {
        throw new DomainError('400005', { detail: `The request body exceeds the limit of ${limitBytes} bytes.`, suggestion: 'Send a smaller form.' });
      }
      throw new DomainError('400002', {
        detail: 'The request body could not be read completely.',
        suggestion: 'Send the whole body with a correct Content-Length.',
      });
    }
    const form: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(text)) {
      if (k in form) throw new DomainError('400001', { field: k, detail: `${k} is given more than once.`, suggestion: `Send ${k} once.` });
      form[k] = v;
    }
    (ctx.state as GatewayState).body = form;
    return next();
  };
}
