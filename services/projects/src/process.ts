import { loadServiceAuth } from '@mp/grpc';
import { createLogger, startOrExit, startProcessOps, stopOnSignals } from '@mp/kit';
import { openServiceDatabase, openTransport, outboxRetentionMs } from '@mp/runtime';
import { parseProjectsConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { startProjectsService } from './service.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one pod of the projects service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, ops } = await startOrExit('projects', async () => {
    const config = parseProjectsConfig();
    const auth = loadServiceAuth('projects', config);
    // The ops port before anything is opened: taken, it stops the start at once.
    const ops = await startProcessOps(config);
    const logger = createLogger('projects');
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
