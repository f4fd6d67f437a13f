import type { Database } from '@mp/db';
import { openServiceDatabase } from '@mp/runtime';
import { notificationOptions, type WebhooksConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import type { PublicUrls } from './notifications/settings.js';
import type { SourceAddresses } from './notifications/sources.js';
import { readExtraCa } from '@mp/mail';
import type { WebhooksServiceOptions } from './service.js';

// The one place the webhooks service's settings become its start options. Both composition roots
// call these: the standalone process (process.ts) and the one-process platform (apps/platform),
// so a setting cannot be wired one way in a pod and another way under `npm start`.

/**
 * Connections of the pool for the API and the worker's bookkeeping, beside the service's own
 * background connections (docs/operations.md, "PostgreSQL connections"). The same whether the
 * service runs alone or in the one-process platform on PostgreSQL: the deliveries it makes, and so
 * the pool they need, do not depend on where it runs. The embedded database has no pool.
 */
const POOL_SIZE = 20;

/** What the composition root opened or made: the keyring, the database, the transport, the logger, the master key. */
export type WebhooksInfra = Pick<WebhooksServiceOptions, 'auth' | 'db' | 'transport' | 'logger' | 'secretsKey'>;

/**
 * The one difference of the one-process platform: the services the notifications ask (projects,
 * monitoring-data) and the gateway their links point to start after webhooks there (its consumer
 * subscribes first, so that the first events find it), on ports known only once they listen; so
 * they are read when first needed instead of from MP_PROJECTS_ADDR, MP_MONITORING_DATA_ADDR and
 * MP_PUBLIC_*_BASE_URL. (The gateway's own base URLs are MP_PUBLIC_*_BASE_URL when set.)
 */
export interface WebhooksInOneProcess {
  sources: () => SourceAddresses;
  publicUrls: () => PublicUrls;
}

/** The service's database (its schema, migrated) with a pool of POOL_SIZE. */
export function openWebhooksDatabase(config: WebhooksConfig): Promise<Database> {
  return openServiceDatabase(config, SCHEMA, migrations, { poolSize: POOL_SIZE });
}

export function webhooksOptionsFrom(config: WebhooksConfig, infra: WebhooksInfra, inOneProcess?: WebhooksInOneProcess): WebhooksServiceOptions {
  return {
    ...infra,
    host: config.MP_GRPC_HOST,
    port: config.MP_WEBHOOKS_GRPC_PORT,
    allowPrivateTargets: config.MP_WEBHOOK_ALLOW_PRIVATE_TARGETS,
    timeoutMs: config.MP_WEBHOOK_TIMEOUT_MS,
    concurrency: config.MP_WEBHOOK_CONCURRENCY,
    perWebhookConcurrency: config.MP_WEBHOOK_CONCURRENCY_PER_WEBHOOK,
    perTenantConcurrency: config.MP_WEBHOOK_CONCURRENCY_PER_TENANT,
    statsIntervalMs: config.MP_WEBHOOK_STATS_INTERVAL_MS,
    deliveryRetentionDays: config.MP_WEBHOOK_DELIVERY_RETENTION_DAYS,
    extraCa: readExtraCa(config.NODE_EXTRA_CA_CERTS),
    notifications: { ...notificationOptions(config), ...(inOneProcess ?? {}) },
  };
}
