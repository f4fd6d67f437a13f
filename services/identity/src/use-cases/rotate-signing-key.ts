import type { identity } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { requireSystem } from '../caller.js';
import type { IdentityDeps } from '../deps.js';

/** Operator RPC: a new signing key; tokens signed by the retired ones keep verifying (ADR 0010). */
export async function rotateSigningKey(deps: IdentityDeps, ctx: CallerContext): Promise<identity.SigningKeyRotation> {
  requireSystem(ctx);
  const { kid, retired } = await deps.keys.rotate();
  deps.logger.info({ kid, retired, request_id: ctx.requestId }, 'signing key rotated');
  return { kid, retiredKids: retired };
}
