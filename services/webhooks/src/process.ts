import { loadServiceAuth } from '@mp/grpc';
import { createLogger, startOrExit, startProcessOps, stopOnSignals } from '@mp/kit';
import { loadSecretsKey, openServiceDatabase, openTransport } from '@mp/runtime';
import { parseWebhooksConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { readExtraCa, startWebhooksService } from './service.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one pod of the webhooks service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, ops } = await startOrExit('webhooks', async () => {
    const config = parseWebhooksConfig();
    const auth = loadServiceAuth('webhooks', config);
    // The ops port before anything is opened: taken, it stops the start at once.
    const ops = await startProcessOps(config);
    const secretsKey = loadSecretsKey(config);
    const logger = createLogger('webhooks');
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
      statsIntervalMs: config.MP_WEBHOOK_STATS_INTERVAL_MS,
      deliveryRetentionDays: config.MP_WEBHOOK_DELIVERY_RETENTION_DAYS,
      extraCa: readExtraCa(config.NODE_EXTRA_CA_CERTS),
    });
    logger.info({ port: service.port, ops_port: ops?.port ?? null }, 'webhooks service listening');
    return { service, transport, db, ops };
  });

  stopOnSignals(
    () => service.stop(),
    () => transport.close(),
    () => db.close(),
    async () => ops?.close(),
    async () => tracing?.shutdown(),
  );
}
