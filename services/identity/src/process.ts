import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { loadSecretsKey, openTransport } from '@mp/runtime';
import { parseIdentityConfig } from './config.js';
import { identityOptionsFrom, openIdentityDatabase } from './compose.js';
import { describeFirstAdmin } from './bootstrap.js';
import { startIdentityService } from './service.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one pod of the identity service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, life, config } = await startOrExit('identity', async () => {
    const config = parseIdentityConfig();
    const auth = loadServiceAuth('identity', config);
    requireSettings('identity', config, ['MP_DATABASE_URL', 'MP_NATS_URL', 'MP_SECRETS_KEY']);
    const logger = createLogger('identity');
    // The ops server before anything is opened (a taken port stops the start at once): /livez
    // answers during migrations, /readyz says "not yet" until the process serves (ADR 0045).
    const life = await startLifecycle('identity', config, logger);
    const secretsKey = loadSecretsKey(config);
    const db = await openIdentityDatabase(config);
    const transport = await openTransport(config, logger);
    const service = await startIdentityService(identityOptionsFrom(config, { auth, db, transport, logger, secretsKey }));
    logger.info({ port: service.port }, 'identity service listening');

    const { admin } = service;
    logger.info(
      { username: admin.username, created: admin.created, password: admin.passwordSource, admin_password_ignored: admin.passwordSettingIgnored },
      admin.passwordSettingIgnored
        ? 'administrator already existed: MP_ADMIN_PASSWORD ignored (reset a lost password with the operator command)'
        : 'administrator',
    );
    // A generated password goes straight to stdout, never through the logger: log pipelines keep
    // what they receive. (The Helm chart always sets MP_ADMIN_PASSWORD from a Secret, so a pod
    // never gets here.)
    if (admin.password) process.stdout.write(describeFirstAdmin(admin).join('\n') + '\n');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
