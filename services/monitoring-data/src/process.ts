import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { openServiceDatabase, openTransport, outboxRetentionMs } from '@mp/runtime';
import { archiveOptionsOf, parseMonitoringDataConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { startMonitoringDataService } from './service.js';
import { alarmSettingsOf } from './alarms/config.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one replica of the monitoring-data service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, life, config } = await startOrExit('monitoring-data', async () => {
    const config = parseMonitoringDataConfig();
    const auth = loadServiceAuth('monitoring-data', config);
    requireSettings('monitoring-data', config, ['MP_DATABASE_URL', 'MP_NATS_URL']);
    const logger = createLogger('monitoring-data');
    // The ops server before anything is opened (a taken port stops the start at once): /livez
    // answers during migrations, /readyz says "not yet" until the process serves (ADR 0045).
    const life = await startLifecycle('monitoring-data', config, logger);
    const db = await openServiceDatabase(config, SCHEMA, migrations, { poolSize: config.MP_MONITORING_DATA_DB_POOL });
    const transport = await openTransport(config, logger);
    const service = await startMonitoringDataService({
      auth,
      db,
      transport,
      logger,
      host: config.MP_GRPC_HOST,
      port: config.MP_MONITORING_DATA_GRPC_PORT,
      projects: config.MP_PROJECTS_ADDR,
      contextTtlMs: config.MP_MONITORING_DATA_CONTEXT_TTL_MS,
      batchChunk: config.MP_MONITORING_DATA_BATCH_CHUNK,
      outboxRetentionMs: outboxRetentionMs(config),
      alarms: alarmSettingsOf(config),
      ...archiveOptionsOf(config, logger),
    });
    logger.info({ port: service.port }, 'monitoring-data service listening');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
