import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { openTransport } from '@mp/runtime';
import { parseMonitoringDataConfig } from './config.js';
import { monitoringDataOptionsFrom, openMonitoringDataDatabase } from './compose.js';
import { startMonitoringDataService } from './service.js';
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
    const db = await openMonitoringDataDatabase(config);
    const transport = await openTransport(config, logger);
    const service = await startMonitoringDataService(monitoringDataOptionsFrom(config, { auth, db, transport, logger }));
    logger.info({ port: service.port }, 'monitoring-data service listening');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
