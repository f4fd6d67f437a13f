import type { ServiceDefinition } from '@grpc/grpc-js';
import { createClient, type CallerContext, type PlatformKeys, type PromiseClient } from '@mp/grpc';

type GeneratedClientCtor = Parameters<typeof createClient>[0];

/**
 * A client of a service as the platform's own callers make it: calls whose context is an
 * operator's (principal type "system") carry the operator's credential, every other call the
 * gateway's. Tests call services directly with it; forged-caller tests use createClient itself.
 */
export function platformClient<S>(
  Ctor: GeneratedClientCtor,
  definition: ServiceDefinition,
  address: string,
  keys: PlatformKeys,
  audience: string,
  deadlineMs?: number,
): PromiseClient<S> {
  const opts = (party: 'gateway' | 'operator') => ({ auth: keys.authFor(party), audience, ...(deadlineMs ? { deadlineMs } : {}) });
  const asGateway = createClient<S>(Ctor, definition, address, opts('gateway')) as unknown as Record<
    string,
    (req: unknown, ctx: CallerContext) => Promise<unknown>
  >;
  const asOperator = createClient<S>(Ctor, definition, address, opts('operator')) as unknown as Record<
    string,
    (req: unknown, ctx: CallerContext) => Promise<unknown>
  >;
  const routed: Record<string, unknown> = {
    close: () => {
      (asGateway.close as unknown as () => void)();
      (asOperator.close as unknown as () => void)();
    },
  };
  for (const method of Object.keys(definition)) {
    routed[method] = (req: unknown, ctx: CallerContext) => (ctx.principalType === 'system' ? asOperator : asGateway)[method]!(req, ctx);
  }
  return routed as PromiseClient<S>;
}
