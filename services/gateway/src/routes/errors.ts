import { catalogue, DomainError, errorCodes, type ErrorEntry } from '@mp/errors';
import { ok } from '../envelope.js';
import * as api from '../api/resources.js';
import type { Route } from '../api/route-spec.js';

/** The error detail record (docs/rules.md#error-codes). */
export function errorDetail(e: ErrorEntry) {
  return { error_code: e.code, message: e.message, category: e.category, common_causes: e.commonCauses, solutions: e.solutions, example: e.example };
}

/** GET /errors/{error_code} (any authenticated caller) and GET /errors (system:read). */
export const errorRoutes: readonly Route[] = [
  {
    spec: {
      method: 'get',
      path: '/errors/:error_code',
      summary: 'The error detail record of one code.',
      tag: 'Errors',
      auth: 'api_key_or_bearer',
      rateLimit: 'tenant',
      response: api.errorDetail,
    },
    handler: async (ctx) => {
      const code = ctx.params.error_code!;
      if (!/^\d{6}$/.test(code)) {
        throw new DomainError('400004', {
          field: 'error_code',
          detail: 'error_code must be six digits.',
          suggestion: 'Pass the six-digit code from the error envelope, e.g. 404001.',
        });
      }
      const entry = catalogue[code];
      if (!entry) {
        throw new DomainError('400003', { field: 'error_code', detail: `${code} is not a code of this API.`, suggestion: 'List every code with GET /errors.' });
      }
      ok(ctx, errorDetail(entry));
    },
  },
  {
    spec: {
      method: 'get',
      path: '/errors',
      summary: 'Every error code of the API.',
      tag: 'Errors',
      auth: 'api_key_or_bearer',
      permission: 'system:read',
      rateLimit: 'tenant',
      response: api.listOf(api.errorDetail),
    },
    handler: async (ctx) => {
      ok(ctx, { items: errorCodes.map((c) => errorDetail(catalogue[c]!)), next_cursor: null, has_more: false });
    },
  },
];
