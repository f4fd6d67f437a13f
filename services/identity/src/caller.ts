import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';

/** API-key management acts on the caller's tenant; a call without one was not authenticated. */
export function requireCaller(ctx: CallerContext): void {
  if (!ctx.tenantId || !ctx.principalId || ctx.principalType === 'anonymous') {
    throw new DomainError('401004', { field: null, detail: 'This request needs an authenticated caller.' });
  }
}
