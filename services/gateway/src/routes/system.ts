import { z } from 'zod';
import type { AppDeps } from '../deps.js';
import type { Route } from '../api/route-spec.js';
import { ok } from '../envelope.js';

const systemConfig = z.object({ environment: z.enum(['live', 'sandbox']), webhook_source_addresses: z.array(z.string()) }).meta({ id: 'SystemConfig' });

/**
 * GET /system/config (system:read): what an integrator needs to know of this
 * installation. `webhook_source_addresses` is the list of source addresses the
 * console offers (docs/rules.md#webhook-targets): the addresses (or CIDR blocks) webhook deliveries leave from, for
 * a receiver's firewall; empty when the operator has not set MP_WEBHOOK_SOURCE_ADDRESSES (ADR 0057).
 */
export const systemRoutes = (deps: Pick<AppDeps, 'webhookSourceAddresses'>): Route[] => [
  {
    spec: {
      method: 'get',
      path: '/system/config',
      summary: 'This installation: the environment and the addresses webhook deliveries come from (for receivers to permit).',
      tag: 'System',
      auth: 'api_key_or_bearer',
      permission: 'system:read',
      rateLimit: 'tenant',
      response: systemConfig,
    },
    handler: (ctx) => {
      const state = ctx.state;
      ok(ctx, { environment: state.environment, webhook_source_addresses: [...(deps.webhookSourceAddresses ?? [])] });
    },
  },
];
