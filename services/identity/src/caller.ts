import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';

/** Management RPCs act on the caller's tenant; a call without one was not authenticated. */
export function requireCaller(ctx: CallerContext): void {
  if (!ctx.tenantId || !ctx.principalId || ctx.principalType === 'anonymous') {
    throw new DomainError('401004', { field: null, detail: 'This request needs an authenticated caller.' });
  }
}

/**
 * Operator RPCs (tenants, plans, signing keys) answer only system callers: processes inside the
 * cluster. The gateway never sends principal type "system", so no API request reaches them.
 */
export function requireSystem(ctx: CallerContext): void {
  if (ctx.principalType !== 'system') {
    throw new DomainError('401004', {
      field: null,
      detail: 'This operation is for platform operators.',
      suggestion: 'Call it from inside the cluster as a system caller.',
    });
  }
}
