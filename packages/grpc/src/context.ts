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
  /** The client's Idempotency-Key header on creating writes (api-surface conventions). */
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
