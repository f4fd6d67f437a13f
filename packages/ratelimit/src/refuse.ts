import { DomainError } from '@mp/errors';
import { DEFAULT_LIMITS, rateLimitHeaders, type Verdict } from './rules.js';

const SUGGESTIONS: Record<Verdict['kind'], string> = {
  api: 'Wait for Retry-After seconds, then retry; spread requests evenly or batch them.',
  data_records: 'Wait for Retry-After seconds; send fewer records per minute or ask for a higher plan limit.',
  reports: 'Wait for Retry-After seconds before generating another report.',
  auth: 'Wait for Retry-After seconds; reuse access tokens and refresh them instead of signing in again.',
};

/** The 429 error of a refused verdict, carrying the headers of docs/rules.md#rate-limit-headers. */
export function rateLimitError(v: Verdict): DomainError {
  const rule = DEFAULT_LIMITS[v.kind];
  return new DomainError(rule.code, {
    detail: `Limit of ${v.limit} ${rule.what} reached; the window resets in ${v.retryAfter} s.`,
    suggestion: SUGGESTIONS[v.kind],
    headers: rateLimitHeaders(v),
  });
}

/**
 * 429004 with the headers of the limit that refused: the concurrency limit (X-RateLimit-Limit the
 * requests allowed in flight, Remaining 0), not the per-minute budget, which was not the reason.
 * A slot frees as soon as a running request ends, so Retry-After and Reset are one second away.
 */
export function concurrencyError(max: number, now = Date.now()): DomainError {
  return new DomainError('429004', {
    detail: `At most ${max} requests may be in flight at once.`,
    suggestion: 'Wait for running requests to finish; limit your client to fewer parallel requests.',
    headers: {
      'X-RateLimit-Limit': String(max),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil(now / 1000) + 1),
      'Retry-After': '1',
    },
  });
}
