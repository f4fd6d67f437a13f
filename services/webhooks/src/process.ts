import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { loadSecretsKey, openTransport } from '@mp/runtime';
import { parseWebhooksConfig } from './config.js';
import { openWebhooksDatabase, webhooksOptionsFrom } from './compose.js';
import { startWebhooksService } from './service.js';
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
    const db = await openWebhooksDatabase(config);
    const transport = await openTransport(config, logger);
    const service = await startWebhooksService(webhooksOptionsFrom(config, { auth, db, transport, logger, secretsKey }));
    logger.info({ port: service.port }, 'webhooks service listening');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
