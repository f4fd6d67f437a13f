import { resolve } from 'node:path';
import type { Database } from '@mp/db';
import type { EventTransport } from '@mp/events';
import { parseGatewayConfig, startGateway, type RunningGateway } from '@mp/gateway';
import { IDENTITY_SCHEMA, identityMigrations, parseIdentityConfig, startIdentityService, type FirstAdmin } from '@mp/identity';
import { generatePlatformKeys, writeOperatorCredential, type PlatformKeys } from '@mp/grpc';
import { z } from 'zod';
import { createLogger, opsSettings, parseConfig, serviceLogger, startProcessOps, type Logger } from '@mp/kit';
import {
  alarmSettingsOf,
  archiveOptionsOf,
  MONITORING_DATA_SCHEMA,
  monitoringDataMigrations,
  parseMonitoringDataConfig,
  startMonitoringDataService,
} from '@mp/monitoring-data';
import { PROJECTS_SCHEMA, parseProjectsConfig, projectsMigrations, startProjectsService } from '@mp/projects';
import { REPORTS_SCHEMA, parseReportsConfig, reportMailOptions, reportsMigrations, startReportsService } from '@mp/reports';
import { legacyEmbeddedSchemas, loadSecretsKey, lockDataDir, openServiceDatabase, openTransport, outboxRetentionMs, type InfraConfig } from '@mp/runtime';
import { startMaintenanceEndpoint } from './backup.js';
import { WEBHOOKS_SCHEMA, notificationOptions, parseWebhooksConfig, readExtraCa, startWebhooksService, webhooksMigrations } from '@mp/webhooks';

export interface PlatformOptions {
  /** Settings as environment variables (process.env by default). */
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** TLS pair to serve with instead of MP_TLS_* files or the self-signed one in MP_DATA_DIR. */
  tls?: { cert: string; key: string };
  /**
   * Every party's service keys and mTLS material; made anew at each start when absent (the
   * services of one process need no keys from outside).
   */
  keys?: PlatformKeys;
}

export interface RunningPlatform {
  gateway: RunningGateway;
  mode: 'embedded' | 'distributed';
  /** The first administrator; `password` only when this start generated it (see FirstAdmin). */
  admin: FirstAdmin;
  ports: { identity: number; projects: number; webhooks: number; monitoringData: number; reports: number };
  /** The platform's one ops port (MP_OPS_PORT: /livez, /readyz, /metrics of every service); null when off. */
  opsPort: number | null;
  /** The keys the services authenticate calls with (tests call services directly with them). */
  keys: PlatformKeys;
  /** MP_DATA_DIR/operator.json: the operator credential of this running platform. */
  operatorFile: string;
  /**
   * Stops accepting connections at once (the listeners are closed when this returns) and resolves
   * when the requests in flight are answered, or MP_SHUTDOWN_TIMEOUT_MS has passed.
   */
  drain(): Promise<void>;
  /** Drains (unless done already), then stops every service and closes the databases. */
  stop(): Promise<void>;
}

/**
 * Runs the whole platform in one process: every service on its own gRPC port on loopback (the
 * same code path as separate pods) and the gateway in front. With MP_DATABASE_URL/MP_NATS_URL set
 * the services use real PostgreSQL and NATS JetStream; without them, the embedded adapters.
 */
export async function startPlatform(opts: PlatformOptions = {}): Promise<RunningPlatform> {
  const env = { ...(opts.env ?? process.env) };
  // In one process the services find each other through the ports they got, so unless told
  // otherwise they take free loopback ports instead of the fixed ones separate pods use.
  for (const name of ['MP_IDENTITY_GRPC_PORT', 'MP_PROJECTS_GRPC_PORT', 'MP_WEBHOOKS_GRPC_PORT', 'MP_MONITORING_DATA_GRPC_PORT', 'MP_REPORTS_GRPC_PORT'])
    env[name] ??= '0';
  const logger = opts.logger ?? createLogger('platform');
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((err) => logger.warn({ err }, 'error while stopping'));
  };
  try {
    const idConfig = parseIdentityConfig(env);
    const prConfig = parseProjectsConfig(env);
    const whConfig = parseWebhooksConfig(env);
    const embedded = !idConfig.MP_DATABASE_URL;
    // The data folder's lock first: a second copy on the same folder finds the first one's ops
    // port taken too, and "another copy runs on this folder" is the answer that helps. Then the
    // ops port: taken, it fails the start before any database is opened.
    const dataLock = lockDataDir(idConfig.MP_DATA_DIR);
    stops.push(async () => dataLock.release());
    // One process, one registry: its /metrics covers every service (label `service`).
    const ops = await startProcessOps(parseConfig(z.object(opsSettings), env));
    if (ops) stops.push(() => ops.close());
    const secretsKey = loadSecretsKey(idConfig);
    const legacy = embedded ? legacyEmbeddedSchemas(idConfig.MP_DATA_DIR, [IDENTITY_SCHEMA, PROJECTS_SCHEMA, MONITORING_DATA_SCHEMA, WEBHOOKS_SCHEMA]) : [];
    if (legacy.length > 0) {
      logger.warn(
        { schemas: legacy },
        `${resolve(idConfig.MP_DATA_DIR)}/db holds one embedded database per service (the earlier layout); they keep being used, at ~200 MiB of memory each. To move to the one shared database, export what you need and remove that folder.`,
      );
    }
    const keys = opts.keys ?? (await generatePlatformKeys({ mtls: true }));

    const open = async (config: InfraConfig, schema: string, migrations: Parameters<typeof openServiceDatabase>[2]) => {
      const db: Database = await openServiceDatabase(config, schema, migrations);
      stops.push(() => db.close());
      return db;
    };
    const transport: EventTransport = await openTransport(idConfig, logger);
    stops.push(() => transport.close());

    // The consumer subscribes first, so that the first events find it (embedded transport).
    // Its notifications ask projects and monitoring-data and link to the gateway, which start
    // later: their addresses are read when first needed.
    const later: { projects?: number; monitoringData?: number; gateway?: RunningGateway } = {};
    const whDb = await open(whConfig, WEBHOOKS_SCHEMA, webhooksMigrations);
    const webhooks = await startWebhooksService({
      auth: keys.authFor('webhooks'),
      db: whDb,
      transport,
      logger: serviceLogger(logger, 'webhooks'),
      secretsKey,
      host: whConfig.MP_GRPC_HOST,
      port: whConfig.MP_WEBHOOKS_GRPC_PORT,
      allowPrivateTargets: whConfig.MP_WEBHOOK_ALLOW_PRIVATE_TARGETS,
      timeoutMs: whConfig.MP_WEBHOOK_TIMEOUT_MS,
      concurrency: whConfig.MP_WEBHOOK_CONCURRENCY,
      perWebhookConcurrency: whConfig.MP_WEBHOOK_CONCURRENCY_PER_WEBHOOK,
      perTenantConcurrency: whConfig.MP_WEBHOOK_CONCURRENCY_PER_TENANT,
      statsIntervalMs: whConfig.MP_WEBHOOK_STATS_INTERVAL_MS,
      deliveryRetentionDays: whConfig.MP_WEBHOOK_DELIVERY_RETENTION_DAYS,
      extraCa: readExtraCa(whConfig.NODE_EXTRA_CA_CERTS),
      notifications: {
        ...notificationOptions(whConfig),
        sources: () => ({ projects: `127.0.0.1:${later.projects}`, monitoringData: `127.0.0.1:${later.monitoringData}` }),
        publicUrls: () => ({ live: later.gateway!.baseUrl, sandbox: later.gateway!.sandboxBaseUrl }),
      },
    });
    stops.push(() => webhooks.stop());

    const idDb = await open(idConfig, IDENTITY_SCHEMA, identityMigrations);
    const identity = await startIdentityService({
      auth: keys.authFor('identity'),
      db: idDb,
      transport,
      logger: serviceLogger(logger, 'identity'),
      config: idConfig,
      secretsKey,
      outboxRetentionMs: outboxRetentionMs(idConfig),
    });
    stops.push(() => identity.stop());

    const prDb = await open(prConfig, PROJECTS_SCHEMA, projectsMigrations);
    const projects = await startProjectsService({
      auth: keys.authFor('projects'),
      db: prDb,
      transport,
      logger: serviceLogger(logger, 'projects'),
      host: prConfig.MP_GRPC_HOST,
      port: prConfig.MP_PROJECTS_GRPC_PORT,
      overdueSweepMs: prConfig.MP_TASK_OVERDUE_SWEEP_MS,
      outboxRetentionMs: outboxRetentionMs(prConfig),
    });
    stops.push(() => projects.stop());
    later.projects = projects.port;

    const mdConfig = parseMonitoringDataConfig({ ...env, MP_PROJECTS_ADDR: `127.0.0.1:${projects.port}`, MP_IDENTITY_ADDR: `127.0.0.1:${identity.port}` });
    const mdDb = await openServiceDatabase(mdConfig, MONITORING_DATA_SCHEMA, monitoringDataMigrations, { poolSize: mdConfig.MP_MONITORING_DATA_DB_POOL });
    stops.push(() => mdDb.close());
    const monitoringData = await startMonitoringDataService({
      auth: keys.authFor('monitoring-data'),
      db: mdDb,
      transport,
      logger: serviceLogger(logger, 'monitoring-data'),
      host: mdConfig.MP_GRPC_HOST,
      port: mdConfig.MP_MONITORING_DATA_GRPC_PORT,
      projects: mdConfig.MP_PROJECTS_ADDR,
      contextTtlMs: mdConfig.MP_MONITORING_DATA_CONTEXT_TTL_MS,
      batchChunk: mdConfig.MP_MONITORING_DATA_BATCH_CHUNK,
      outboxRetentionMs: outboxRetentionMs(mdConfig),
      alarms: alarmSettingsOf(mdConfig),
      ...archiveOptionsOf(mdConfig, serviceLogger(logger, 'monitoring-data')),
    });
    stops.push(() => monitoringData.stop());
    later.monitoringData = monitoringData.port;
    // Projects hands each change's ingest version to monitoring-data before committing (ADR 0022);
    // on the one embedded database in-process, so that the hand-over joins the projects
    // transaction instead of waiting for the session it holds (ADR 0051).
    projects.connectIngestVersions(embedded ? monitoringData.ingestVersions : `127.0.0.1:${monitoringData.port}`);

    // Reports reads projects and monitoring-data as the person who asked for a report.
    const rpConfig = parseReportsConfig(env);
    const rpDb = await open(rpConfig, REPORTS_SCHEMA, reportsMigrations);
    const reports = await startReportsService({
      auth: keys.authFor('reports'),
      db: rpDb,
      transport,
      logger: serviceLogger(logger, 'reports'),
      host: rpConfig.MP_GRPC_HOST,
      port: rpConfig.MP_REPORTS_GRPC_PORT,
      sources: { projects: `127.0.0.1:${projects.port}`, monitoringData: `127.0.0.1:${monitoringData.port}` },
      concurrency: rpConfig.MP_REPORTS_CONCURRENCY,
      leaseMs: rpConfig.MP_REPORTS_LEASE_MS,
      pollMs: rpConfig.MP_REPORTS_POLL_MS,
      schedulePollMs: rpConfig.MP_REPORTS_SCHEDULE_POLL_MS,
      generate: rpConfig.MP_REPORTS_GENERATE,
      outboxRetentionMs: outboxRetentionMs(rpConfig),
      mail: reportMailOptions(rpConfig),
    });
    stops.push(() => reports.stop());

    const gwConfig = parseGatewayConfig({
      ...env,
      MP_IDENTITY_ADDR: `127.0.0.1:${identity.port}`,
      MP_PROJECTS_ADDR: `127.0.0.1:${projects.port}`,
      MP_WEBHOOKS_ADDR: `127.0.0.1:${webhooks.port}`,
      MP_MONITORING_DATA_ADDR: `127.0.0.1:${monitoringData.port}`,
      MP_REPORTS_ADDR: `127.0.0.1:${reports.port}`,
    });
    const gateway = await startGateway(gwConfig, serviceLogger(logger, 'gateway'), {
      auth: keys.authFor('gateway'),
      ...(opts.tls ? { tls: opts.tls } : {}),
    });
    stops.push(() => gateway.stop());
    later.gateway = gateway;

    // How `npm run data:backup` copies the embedded database while this process has it open.
    // Only the embedded database lives in the data folder; PostgreSQL is backed up with pg_dump
    // (data:backup refuses MP_DATABASE_URL before it looks for this endpoint).
    if (embedded) {
      const maintenance = await startMaintenanceEndpoint(idConfig.MP_DATA_DIR, logger);
      stops.push(() => maintenance.close());
    }

    const operatorFile = writeOperatorCredential(idConfig.MP_DATA_DIR, keys, `127.0.0.1:${identity.port}`);

    // The gateway drains before anything behind it stops, so that what it answers can still reach
    // the services; past the bound, what is left is cut by the gateway's stop.
    let draining: Promise<void> | null = null;
    const drain = () =>
      (draining ??= new Promise<void>((resolve) => {
        const bound = setTimeout(() => {
          logger.warn({ timeout_ms: gwConfig.MP_SHUTDOWN_TIMEOUT_MS }, 'requests still in flight at the end of the drain are cut');
          resolve();
        }, gwConfig.MP_SHUTDOWN_TIMEOUT_MS);
        const done = () => {
          clearTimeout(bound);
          resolve();
        };
        gateway.drain().then(done, (err: unknown) => {
          logger.warn({ err }, 'error while draining');
          done();
        });
      }));

    return {
      gateway,
      keys,
      operatorFile,
      mode: embedded ? 'embedded' : 'distributed',
      admin: identity.admin,
      ports: { identity: identity.port, projects: projects.port, webhooks: webhooks.port, monitoringData: monitoringData.port, reports: reports.port },
      opsPort: ops?.port ?? null,
      drain,
      async stop() {
        await drain();
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
