import { z } from 'zod';
import { envBoolean, envPort, parseConfig } from '@mp/kit';
import { infraSchema } from '@mp/runtime';

export const webhooksConfigSchema = infraSchema.extend({
  MP_WEBHOOKS_GRPC_PORT: envPort(50055),
  MP_GRPC_HOST: z.string().default('127.0.0.1'),
  /** `true` lets webhook URLs point at loopback/private addresses (tests, on-premises receivers). */
  MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: envBoolean(false),
  /** Per-attempt timeout (spec §6.5: 30 s). */
  MP_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
  /** Attempts in flight at once across all receivers. */
  MP_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(1024),
  /** Attempts in flight at once for one webhook (4 while it does not answer at all). */
  MP_WEBHOOK_CONCURRENCY_PER_WEBHOOK: z.coerce.number().int().min(4).max(10_000).default(64),
  /**
   * Attempts in flight at once for all webhooks of one tenant: a quarter of the slots by default,
   * so one tenant's slow receivers never hold the slots other tenants' deliveries need.
   */
  MP_WEBHOOK_CONCURRENCY_PER_TENANT: z.coerce.number().int().min(4).max(10_000).default(256),
  /** How often the per-webhook success rates (metric and alarm) are recomputed. */
  MP_WEBHOOK_STATS_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /**
   * Days a finished delivery (and its attempts) is kept; older ones are removed in small batches
   * every 10 minutes (ADR 0021). Pending deliveries are never removed.
   */
  MP_WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Extra CA certificate file the sender trusts (self-signed receivers). */
  NODE_EXTRA_CA_CERTS: z.string().optional(),
});

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;

export const parseWebhooksConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(webhooksConfigSchema, env);
