import { DomainError } from './domain-error.js';

/**
 * SQLSTATEs with which PostgreSQL says it has no room for this work right now, not that the work
 * is wrong: class 53 (insufficient resources: too many connections, out of memory or disk) and
 * 57P03 (cannot connect now: starting up, shutting down, in recovery). Nothing was done; the same
 * request can succeed a moment later.
 */
function isDatabaseOverloaded(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(53[0-9A-Z]{3}|57P03)$/.test(code);
}

/**
 * The envelope for an error no use case turned into a DomainError, where the gateway's and the
 * gRPC server's catch-alls meet one: a database without room (a connection limit reached under a
 * load peak) is 503002 with Retry-After, which clients retry with back-off, rather than 500001,
 * which tells them the request itself broke something; anything else is 500001 with the request
 * id to quote.
 */
export function unexpectedError(err: unknown, requestId: string): DomainError {
  if (isDatabaseOverloaded(err)) {
    return new DomainError('503002', {
      detail: 'The database has no room for this request right now (its connection limit or another resource is exhausted); nothing was changed.',
      suggestion: 'Retry after Retry-After seconds with exponential back-off (1 s, 2 s, 4 s, at most 3 attempts).',
      headers: { 'Retry-After': '1' },
    });
  }
  return new DomainError('500001', { detail: `Internal error; quote request ${requestId} to support.` });
}
