import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { openServiceDatabase, openTransport, outboxRetentionMs } from '@mp/runtime';
import { parseProjectsConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { startProjectsService } from './service.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one pod of the projects service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, life, config } = await startOrExit('projects', async () => {
    const config = parseProjectsConfig();
    const auth = loadServiceAuth('projects', config);
    requireSettings('projects', config, ['MP_DATABASE_URL', 'MP_NATS_URL']);
    const logger = createLogger('projects');
    // The ops server before anything is opened (a taken port stops the start at once): /livez
    // answers during migrations, /readyz says "not yet" until the process serves (ADR 0045).
    const life = await startLifecycle('projects', config, logger);
    const db = await openServiceDatabase(config, SCHEMA, migrations);
    const transport = await openTransport(config, logger);
    const service = await startProjectsService({
      auth,
      db,
      transport,
      logger,
      host: config.MP_GRPC_HOST,
      port: config.MP_PROJECTS_GRPC_PORT,
      overdueSweepMs: config.MP_TASK_OVERDUE_SWEEP_MS,
      outboxRetentionMs: outboxRetentionMs(config),
      ingestVersions: config.MP_MONITORING_DATA_ADDR,
    });
    logger.info({ port: service.port }, 'projects service listening');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
