import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { openTransport } from '@mp/runtime';
import { parseProjectsConfig } from './config.js';
import { openProjectsDatabase, projectsOptionsFrom } from './compose.js';
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
    const db = await openProjectsDatabase(config);
    const transport = await openTransport(config, logger);
    const service = await startProjectsService(projectsOptionsFrom(config, { auth, db, transport, logger }));
    logger.info({ port: service.port }, 'projects service listening');
    return { service, transport, db, life, config };
  });

  life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close(), async () => tracing?.shutdown()]);
}
