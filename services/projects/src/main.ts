import { serviceAuthOrExit } from '@mp/grpc';
import { createLogger, requireSettingsOrExit, startLifecycle } from '@mp/kit';
import { openServiceDatabase, openTransport, outboxRetentionMs } from '@mp/runtime';
import { parseProjectsConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { startProjectsService } from './service.js';

// Standalone process entry (one pod of the projects service).
const config = parseProjectsConfig();
const auth = serviceAuthOrExit('projects', config);
requireSettingsOrExit('projects', config, ['MP_DATABASE_URL', 'MP_NATS_URL']);
const logger = createLogger('projects');
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

life.serving([() => service.stop(config.MP_SHUTDOWN_TIMEOUT_MS), () => transport.close(), () => db.close()]);
