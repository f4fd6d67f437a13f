import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { openTransport } from '@mp/runtime';
import { parseReportsConfig } from './config.js';
import { openReportsDatabase, reportsOptionsFrom } from './compose.js';
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
    const db = await openReportsDatabase(config);
    const transport = await openTransport(config, logger);
    const service = await startReportsService(reportsOptionsFrom(config, { auth, db, transport, logger }));
    logger.info({ port: service.port, ops_port: life.ops.port }, 'reports service listening');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
