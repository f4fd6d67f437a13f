import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { openServiceDatabase, openTransport, outboxRetentionMs } from '@mp/runtime';
import { parseReportsConfig, reportMailOptions } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { startReportsService } from './service.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one pod of the reports service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, life, config } = await startOrExit('reports', async () => {
    const config = parseReportsConfig();
    const auth = loadServiceAuth('reports', config);
    requireSettings('reports', config, ['MP_DATABASE_URL', 'MP_NATS_URL']);
    const logger = createLogger('reports');
    const life = await startLifecycle('reports', config, logger);
    const db = await openServiceDatabase(config, SCHEMA, migrations);
    const transport = await openTransport(config, logger);
    const service = await startReportsService({
      auth,
      db,
      transport,
      logger,
      host: config.MP_GRPC_HOST,
      port: config.MP_REPORTS_GRPC_PORT,
      sources: { projects: config.MP_PROJECTS_ADDR, monitoringData: config.MP_MONITORING_DATA_ADDR },
      concurrency: config.MP_REPORTS_CONCURRENCY,
      leaseMs: config.MP_REPORTS_LEASE_MS,
      pollMs: config.MP_REPORTS_POLL_MS,
      schedulePollMs: config.MP_REPORTS_SCHEDULE_POLL_MS,
      generate: config.MP_REPORTS_GENERATE,
      outboxRetentionMs: outboxRetentionMs(config),
      mail: reportMailOptions(config),
    });
    logger.info({ port: service.port, ops_port: life.ops.port }, 'reports service listening');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
