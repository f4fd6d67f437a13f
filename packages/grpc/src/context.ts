import { Metadata } from '@grpc/grpc-js';

/**
 * Who is calling and on whose behalf, set by the gateway and carried in gRPC metadata.
 * Services inside the cluster trust it and nothing else.
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
}

const KEYS = {
  requestId: 'x-mp-request-id',
  tenantId: 'x-mp-tenant-id',
  environment: 'x-mp-environment',
  principalId: 'x-mp-principal-id',
  principalType: 'x-mp-principal-type',
  permissions: 'x-mp-permissions',
  traceparent: 'traceparent',
  idempotencyKey: 'x-mp-idempotency-key',
} as const;

export function contextToMetadata(ctx: CallerContext): Metadata {
  const md = new Metadata();
  md.set(KEYS.requestId, ctx.requestId);
  md.set(KEYS.tenantId, ctx.tenantId);
  md.set(KEYS.environment, ctx.environment);
  md.set(KEYS.principalId, ctx.principalId);
  md.set(KEYS.principalType, ctx.principalType);
  md.set(KEYS.permissions, ctx.permissions.join(' '));
  if (ctx.traceparent) md.set(KEYS.traceparent, ctx.traceparent);
  if (ctx.idempotencyKey) md.set(KEYS.idempotencyKey, ctx.idempotencyKey);
  return md;
}

export function contextFromMetadata(md: Metadata): CallerContext {
  const get = (k: string) => {
    const v = md.get(k)[0];
    return typeof v === 'string' ? v : v ? v.toString() : '';
  };
  const env = get(KEYS.environment);
  const type = get(KEYS.principalType);
  const traceparent = get(KEYS.traceparent);
  const idempotencyKey = get(KEYS.idempotencyKey);
  return {
    requestId: get(KEYS.requestId),
    tenantId: get(KEYS.tenantId),
    environment: env === 'sandbox' ? 'sandbox' : 'live',
    principalId: get(KEYS.principalId),
    principalType: type === 'user' || type === 'api_key' || type === 'system' ? type : 'anonymous',
    permissions: get(KEYS.permissions).split(' ').filter(Boolean),
    ...(traceparent ? { traceparent } : {}),
    ...(idempotencyKey ? { idempotencyKey } : {}),
  };
}

/** A context for calls made before anyone signed in (login, API-key check). */
export function anonymousContext(requestId: string, environment: 'live' | 'sandbox'): CallerContext {
  return { requestId, tenantId: '', environment, principalId: '', principalType: 'anonymous', permissions: [] };
}
