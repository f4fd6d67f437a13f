import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { loadSecretsKey, openServiceDatabase, openTransport } from '@mp/runtime';
import { notificationOptions, parseWebhooksConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { readExtraCa, startWebhooksService } from './service.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one pod of the webhooks service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, life, config } = await startOrExit('webhooks', async () => {
    const config = parseWebhooksConfig();
    const auth = loadServiceAuth('webhooks', config);
    requireSettings('webhooks', config, ['MP_DATABASE_URL', 'MP_NATS_URL', 'MP_SECRETS_KEY']);
    const logger = createLogger('webhooks');
    // The ops server before anything is opened (a taken port stops the start at once): /livez
    // answers during migrations, /readyz says "not yet" until the process serves (ADR 0045).
    const life = await startLifecycle('webhooks', config, logger);
    const secretsKey = loadSecretsKey(config);
    const db = await openServiceDatabase(config, SCHEMA, migrations, { poolSize: 20 });
    const transport = await openTransport(config, logger);
    const service = await startWebhooksService({
      auth,
      db,
      transport,
      logger,
      secretsKey,
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
      notifications: notificationOptions(config),
    });
    logger.info({ port: service.port }, 'webhooks service listening');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
