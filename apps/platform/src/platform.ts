import { resolve } from 'node:path';
import type { Database } from '@mp/db';
import type { EventTransport } from '@mp/events';
import { gatewayArgsFrom, parseGatewayConfig, startGateway, type RunningGateway } from '@mp/gateway';
import { IDENTITY_SCHEMA, identityOptionsFrom, openIdentityDatabase, parseIdentityConfig, startIdentityService, type FirstAdmin } from '@mp/identity';
import { generatePlatformKeys, writeOperatorCredential, type PlatformKeys } from '@mp/grpc';
import { z } from 'zod';
import { createLogger, opsSettings, parseConfig, serviceLogger, startProcessOps, type Logger } from '@mp/kit';
import {
  MONITORING_DATA_SCHEMA,
  monitoringDataOptionsFrom,
  openMonitoringDataDatabase,
  parseMonitoringDataConfig,
  startMonitoringDataService,
} from '@mp/monitoring-data';
import { PROJECTS_SCHEMA, openProjectsDatabase, parseProjectsConfig, projectsOptionsFrom, startProjectsService } from '@mp/projects';
import { openReportsDatabase, parseReportsConfig, reportsOptionsFrom, startReportsService } from '@mp/reports';
import { legacyEmbeddedSchemas, loadSecretsKey, lockDataDir, openTransport } from '@mp/runtime';
import { startMaintenanceEndpoint } from './backup.js';
import { WEBHOOKS_SCHEMA, openWebhooksDatabase, parseWebhooksConfig, startWebhooksService, webhooksOptionsFrom } from '@mp/webhooks';

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

    // Each service's database is opened, and its options made, by the service's own compose
    // functions, the ones its standalone process uses: what differs here is passed to them
    // explicitly (the peers' loopback addresses, and what starts later).
    const track = (db: Database) => {
      stops.push(() => db.close());
      return db;
    };
    const loopback = (port: number | undefined) => `127.0.0.1:${port}`;
    const transport: EventTransport = await openTransport(idConfig, logger);
    stops.push(() => transport.close());

    // The consumer subscribes first, so that the first events find it (embedded transport).
    // Its notifications ask projects and monitoring-data and link to the gateway, which start
    // later: their addresses are read when first needed.
    const later: { projects?: number; monitoringData?: number; gateway?: RunningGateway } = {};
    const whDb = track(await openWebhooksDatabase(whConfig));
    const webhooks = await startWebhooksService(
      webhooksOptionsFrom(
        whConfig,
        { auth: keys.authFor('webhooks'), db: whDb, transport, logger: serviceLogger(logger, 'webhooks'), secretsKey },
        {
          sources: () => ({ projects: loopback(later.projects), monitoringData: loopback(later.monitoringData) }),
          publicUrls: () => ({ live: later.gateway!.baseUrl, sandbox: later.gateway!.sandboxBaseUrl }),
        },
      ),
    );
    stops.push(() => webhooks.stop());

    const idDb = track(await openIdentityDatabase(idConfig));
    const identity = await startIdentityService(
      identityOptionsFrom(idConfig, { auth: keys.authFor('identity'), db: idDb, transport, logger: serviceLogger(logger, 'identity'), secretsKey }),
    );
    stops.push(() => identity.stop());

    const prDb = track(await openProjectsDatabase(prConfig));
    const projects = await startProjectsService(
      projectsOptionsFrom(
        prConfig,
        { auth: keys.authFor('projects'), db: prDb, transport, logger: serviceLogger(logger, 'projects') },
        { ingestVersionsLater: true },
      ),
    );
    stops.push(() => projects.stop());
    later.projects = projects.port;

    const mdConfig = parseMonitoringDataConfig({ ...env, MP_PROJECTS_ADDR: loopback(projects.port), MP_IDENTITY_ADDR: loopback(identity.port) });
    const mdDb = track(await openMonitoringDataDatabase(mdConfig));
    const monitoringData = await startMonitoringDataService(
      monitoringDataOptionsFrom(mdConfig, { auth: keys.authFor('monitoring-data'), db: mdDb, transport, logger: serviceLogger(logger, 'monitoring-data') }),
    );
    stops.push(() => monitoringData.stop());
    later.monitoringData = monitoringData.port;
    // Projects hands each change's ingest version to monitoring-data before committing (ADR 0022);
    // on the one embedded database in-process, so that the hand-over joins the projects
    // transaction instead of waiting for the session it holds (ADR 0051).
    projects.connectIngestVersions(embedded ? monitoringData.ingestVersions : loopback(monitoringData.port));

    // Reports reads projects and monitoring-data as the person who asked for a report.
    const rpConfig = parseReportsConfig({ ...env, MP_PROJECTS_ADDR: loopback(projects.port), MP_MONITORING_DATA_ADDR: loopback(monitoringData.port) });
    const rpDb = track(await openReportsDatabase(rpConfig));
    const reports = await startReportsService(
      reportsOptionsFrom(rpConfig, { auth: keys.authFor('reports'), db: rpDb, transport, logger: serviceLogger(logger, 'reports') }),
    );
    stops.push(() => reports.stop());

    const gwConfig = parseGatewayConfig({
      ...env,
      MP_IDENTITY_ADDR: loopback(identity.port),
      MP_PROJECTS_ADDR: loopback(projects.port),
      MP_WEBHOOKS_ADDR: loopback(webhooks.port),
      MP_MONITORING_DATA_ADDR: loopback(monitoringData.port),
      MP_REPORTS_ADDR: loopback(reports.port),
    });
    const gateway = await startGateway(
      ...gatewayArgsFrom(gwConfig, { auth: keys.authFor('gateway'), logger: serviceLogger(logger, 'gateway'), ...(opts.tls ? { tls: opts.tls } : {}) }),
    );
    stops.push(() => gateway.stop());
    later.gateway = gateway;
    // Without Redis each RateLimits counts in its own memory: imports count in the gateway's, so a
    // tenant's imports and JSON writes share one data-record limit in this process too.
    if (!gwConfig.MP_REDIS_URL) monitoringData.importWorker.shareLimits(gateway.limits);

    // How `npm run data:backup` copies the embedded database while this process has it open.
    // Only the embedded database lives in the data folder; PostgreSQL is backed up with pg_dump
    // (data:backup refuses MP_DATABASE_URL before it looks for this endpoint).
    if (embedded) {
      const maintenance = await startMaintenanceEndpoint(idConfig.MP_DATA_DIR, logger);
      stops.push(() => maintenance.close());
    }

    const operatorFile = writeOperatorCredential(idConfig.MP_DATA_DIR, keys, loopback(identity.port));

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
