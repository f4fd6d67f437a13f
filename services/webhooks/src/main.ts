import { serviceAuthOrExit } from '@mp/grpc';
import { createLogger, stopOnSignals } from '@mp/kit';
import { loadSecretsKey, openServiceDatabase, openTransport } from '@mp/runtime';
import { parseWebhooksConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { readExtraCa, startWebhooksService } from './service.js';

// Standalone process entry (one pod of the webhooks service).
const config = parseWebhooksConfig();
const auth = serviceAuthOrExit('webhooks', config);
const logger = createLogger('webhooks');
const db = await openServiceDatabase(config, SCHEMA, migrations, { poolSize: 20 });
const transport = await openTransport(config, logger);
const service = await startWebhooksService({
  auth,
  db,
  transport,
  logger,
  secretsKey: loadSecretsKey(config),
  host: config.MP_GRPC_HOST,
  port: config.MP_WEBHOOKS_GRPC_PORT,
  allowPrivateTargets: config.MP_WEBHOOK_ALLOW_PRIVATE_TARGETS,
  timeoutMs: config.MP_WEBHOOK_TIMEOUT_MS,
  concurrency: config.MP_WEBHOOK_CONCURRENCY,
  perWebhookConcurrency: config.MP_WEBHOOK_CONCURRENCY_PER_WEBHOOK,
  statsIntervalMs: config.MP_WEBHOOK_STATS_INTERVAL_MS,
  deliveryRetentionDays: config.MP_WEBHOOK_DELIVERY_RETENTION_DAYS,
  ...(config.MP_WEBHOOKS_METRICS_PORT !== 'off' ? { metricsPort: config.MP_WEBHOOKS_METRICS_PORT } : {}),
  extraCa: readExtraCa(config.NODE_EXTRA_CA_CERTS),
});
logger.info({ port: service.port, metrics_port: service.metricsPort }, 'webhooks service listening');

stopOnSignals(
  () => service.stop(),
  () => transport.close(),
  () => db.close(),
);
