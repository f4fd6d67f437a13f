import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';

/** Management RPCs act on the caller's tenant; a call without one was not authenticated. */
export function requireCaller(ctx: CallerContext): void {
  if (!ctx.tenantId || !ctx.principalId || ctx.principalType === 'anonymous') {
    throw new DomainError('401004', { field: null, detail: 'This request needs an authenticated caller.' });
  }
}

/**
 * Operator RPCs (tenants, plans, signing keys) answer only the operator's credential: a context
 * authenticated with the operator key (`mp-operator`). The server's caller policy already admits
 * no one else to them; this keeps the rule next to the use case, whatever the binding says.
 */
export function requireSystem(ctx: CallerContext): void {
  if (ctx.caller !== 'operator' || ctx.principalType !== 'system') {
    throw new DomainError('401004', {
      field: null,
      detail: 'This operation is for platform operators.',
      suggestion: 'Run it with the operator command (npm run operator), which holds the operator key.',
    });
  }
}
