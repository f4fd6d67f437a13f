import { loadServiceAuth } from '@mp/grpc';
import { createLogger, startOrExit, startProcessOps, stopOnSignals } from '@mp/kit';
import { loadSecretsKey, openServiceDatabase, openTransport, outboxRetentionMs } from '@mp/runtime';
import { parseIdentityConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { startIdentityService } from './service.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one pod of the identity service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, ops } = await startOrExit('identity', async () => {
    const config = parseIdentityConfig();
    const auth = loadServiceAuth('identity', config);
    // The ops port before anything is opened: taken, it stops the start at once.
    const ops = await startProcessOps(config);
    const secretsKey = loadSecretsKey(config);
    const logger = createLogger('identity');
    const db = await openServiceDatabase(config, SCHEMA, migrations);
    const transport = await openTransport(config, logger);
    const service = await startIdentityService({
      auth,
      db,
      transport,
      logger,
      config,
      secretsKey,
      outboxRetentionMs: outboxRetentionMs(config),
    });
    logger.info({ port: service.port }, 'identity service listening');

    if (service.admin.created) {
      logger.info({ username: service.admin.username, generated_password: Boolean(service.admin.password) }, 'first administrator created');
    }
    if (service.admin.password) {
      // Straight to stdout, never through the logger: log pipelines keep what they receive.
      process.stdout.write(
        `First administrator created: username "${service.admin.username}", password "${service.admin.password}"\n` +
          '(shown once: keep it now, or set MP_ADMIN_USERNAME/MP_ADMIN_PASSWORD before the first start)\n',
      );
    }
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
