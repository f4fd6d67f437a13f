import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { DomainError } from '@mp/errors';
import { MAX_LENGTH } from '../bounds.js';
import { findControlCharacter, hasControlCharacter } from '../control-characters.js';

/** Idempotency-Key (ADR 0012): at most 255 characters, printable ASCII as gRPC metadata must be. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** W3C Trace Context `traceparent`: version-traceid-parentid-flags in lower-case hex. */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * Checks, ahead of every route, the parts of a request that the gateway forwards or that reach a
 * service as they came (docs/adr/0018): each used to end in a 500 when it held what gRPC metadata or
 * PostgreSQL cannot carry.
 * - `Idempotency-Key` goes into gRPC metadata on every authenticated call, GETs included:
 *   non-ASCII or control characters are 400004, more than 255 characters 400003.
 * - `traceparent` goes there too; one that is not W3C Trace Context is ignored, as the W3C
 *   recommendation says, rather than refused.
 * - Every query parameter (name and value): NUL or another control character is 400004 naming it.
 */
export function requestInput(): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    if (key) {
      if (!PRINTABLE_ASCII.test(key)) {
        throw new DomainError('400004', {
          field: 'Idempotency-Key',
          detail: 'Idempotency-Key may hold only printable ASCII characters.',
          suggestion: 'Send a UUID, e.g. Idempotency-Key: 6f1c2a0e-8d4b-4f57-9a1e-2b3c4d5e6f70.',
        });
      }
      if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
        throw new DomainError('400003', {
          field: 'Idempotency-Key',
          detail: `Idempotency-Key is at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long.`,
          suggestion: 'Send a UUID (36 characters).',
        });
      }
    }
    const traceparent = ctx.get('traceparent');
    if (traceparent && !TRACEPARENT.test(traceparent)) delete ctx.req.headers.traceparent;
    const path = findControlCharacter(ctx.query, 'query');
    if (path !== null) {
      const field = String(path[0]);
      throw new DomainError('400004', {
        field: PRINTABLE_ASCII.test(field) && field.length <= MAX_LENGTH.identifier ? field : 'query',
        detail: 'A query parameter holds a NUL or other control character.',
        suggestion: 'Remove control characters (such as %00) from the query string.',
      });
    }
    return next();
  };
}

/**
 * Bounds every path parameter of the router (`:project_id`, `:user_id`, …) before its route runs:
 * over MAX_LENGTH.id characters is 400003, a control character (`/projects/%00`) 400004, each
 * naming the parameter. A path can be as long as Node's 16 KB header limit, and an id reaches the
 * services and their error details as it came.
 */
export function boundPathParameters(router: Router, names: readonly string[]): void {
  for (const name of names) {
    router.param(name, (value, _ctx, next) => {
      if (value.length > MAX_LENGTH.id) {
        throw new DomainError('400003', {
          field: name,
          detail: `${name} is at most ${MAX_LENGTH.id} characters long.`,
          suggestion: 'Use the id exactly as the API returned it.',
        });
      }
      if (hasControlCharacter(value, 'query')) {
        throw new DomainError('400004', {
          field: name,
          detail: `${name} holds a NUL or other control character.`,
          suggestion: 'Use the id exactly as the API returned it.',
        });
      }
      return next();
    });
  }
}

/** Every path parameter of the API. */
export const PATH_PARAMETERS = [
  'project_id',
  'point_id',
  'data_id',
  'batch_id',
  'task_id',
  'device_id',
  'user_id',
  'key_id',
  'webhook_id',
  'delivery_id',
  'client_id',
  'error_code',
  'alarm_id',
  'template_id',
  'report_id',
  'schedule_id',
  'profile_id',
  'import_id',
] as const;
