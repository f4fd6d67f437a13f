import { loadServiceAuth } from '@mp/grpc';
import { createLogger, startOrExit, startProcessOps, stopOnSignals } from '@mp/kit';
import { openServiceDatabase, openTransport, outboxRetentionMs } from '@mp/runtime';
import { parseMonitoringDataConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { startMonitoringDataService } from './service.js';
import { alarmSettingsOf } from './alarms/config.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one replica of the monitoring-data service): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { service, transport, db, ops } = await startOrExit('monitoring-data', async () => {
    const config = parseMonitoringDataConfig();
    const auth = loadServiceAuth('monitoring-data', config);
    // The ops port before anything is opened: taken, it stops the start at once.
    const ops = await startProcessOps(config);
    const logger = createLogger('monitoring-data');
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
    });
    logger.info({ port: service.port }, 'monitoring-data service listening');
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
