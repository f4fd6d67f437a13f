import { DomainError } from '@mp/errors';

/**
 * Who is calling and on whose behalf. The gateway (or a service calling another) makes it for each
 * call and sends it as a short-lived token authenticated with the pair key of caller and callee
 * (caller-token.ts); a service acts on nothing else.
 */
export interface CallerContext {
  requestId: string;
  tenantId: string;
  environment: 'live' | 'sandbox';
  principalId: string;
  principalType: 'user' | 'api_key' | 'system' | 'anonymous';
  permissions: string[];
  traceparent?: string;
  /** The client's Idempotency-Key header on creating writes (docs/rules.md#idempotency). */
  idempotencyKey?: string;
  /**
   * The party whose key authenticated this context (`gateway`, `monitoring-data`, `operator`):
   * set by the receiving server after verification, never taken from what a caller says.
   */
  caller?: string;
}

/** A context for calls made before anyone signed in (login, API-key check). */
export function anonymousContext(requestId: string, environment: 'live' | 'sandbox'): CallerContext {
  return { requestId, tenantId: '', environment, principalId: '', principalType: 'anonymous', permissions: [] };
}

/**
 * A principal never acts on one that holds more than it does (ADR 0019, ADR 0063): changing,
 * unlocking, disabling or deleting a user, rolling or revoking an API key, and changing, testing,
 * reading the deliveries of, rotating or deleting a webhook or deleting an OAuth client made by a
 * principal whose permissions are not all held by the caller is refused with 401004 — the code of
 * granting a permission one does not hold — before anything changes. Otherwise a narrow
 * administrator could sign in as a wider user, take a wider key's new value, or point a wider
 * administrator's webhook (and its payloads) at itself.
 */
export function requireReachable(targetPermissions: readonly string[], ctx: CallerContext, target: { field: string; name: string }): void {
  const beyond = [...new Set(targetPermissions.filter((p) => !ctx.permissions.includes(p)))];
  if (beyond.length === 0) return;
  throw new DomainError('401004', {
    field: target.field,
    detail: `${target.name} holds ${beyond.join(', ')}, which you do not hold: you can act only on users, keys, webhooks and OAuth clients whose permissions you hold yourself.`,
    suggestion: 'Ask an administrator who holds all of these permissions to make the change.',
  });
}
