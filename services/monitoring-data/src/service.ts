import { RecomputeWorker } from './recompute.js';
import { identity, projects } from '@mp/contracts';
import type { Database } from '@mp/db';
import { OutboxRelay, type EventTransport } from '@mp/events';
import { createClient, startGrpcServer, type ServiceAuth } from '@mp/grpc';
import { systemClock, type Clock, type Logger } from '@mp/kit';
import { Archiver, retentionFromIdentity, type RawRetention } from './archive.js';
import { BatchWorker } from './batch-worker.js';
import type { DataDeps } from './deps.js';
import { monitoringDataBinding } from './handlers.js';
import { IngestContexts, type ProjectsClient } from './ingest-context.js';
import { ProjectAccess } from './project-access.js';
import { IngestVersions, ingestVersionsBinding } from './ingest-versions.js';
import { KnownPoints } from './known-points.js';
import { Partitions } from './partitions.js';
import { DEFAULT_ALARM_SETTINGS, type AlarmSettings } from './alarms/settings.js';
import { StaleSweep } from './alarms/stale-sweep.js';
import { RollupFolder } from './rollup-folder.js';
import { RateLimits } from '@mp/ratelimit';
import { ImportWorker } from './imports/worker.js';

/** docs/imports.md#limits: the largest logger file accepted when MP_IMPORT_MAX_BYTES is not set. */
export const DEFAULT_IMPORT_MAX_BYTES = 200 * 1024 * 1024;

export interface MonitoringDataServiceOptions {
  db: Database;
  transport: EventTransport;
  /** This service's keyring (and mTLS material): who may call it, and how it calls others. */
  auth: ServiceAuth;
  logger: Logger;
  host?: string;
  port: number;
  /** Address of the projects service (or a client, e.g. one shared in-process). */
  projects: string | ProjectsClient;
  contextTtlMs?: number;
  batchChunk?: number;
  batchPollMs?: number;
  /** Readings per transaction of a recomputation after a new calibration (recompute.ts; 500). */
  recomputeBatch?: number;
  clock?: Clock;
  /** How often rollup deltas are folded (ADR 0023); 1 s by default, 0 never (tests). */
  rollupFoldMs?: number;
  /** How long a published event stays in the outbox (MP_OUTBOX_RETENTION_HOURS); 24 h by default. */
  outboxRetentionMs?: number;
  /** Alarm rules (MP_ALARM_*); DEFAULT_ALARM_SETTINGS where absent. */
  alarms?: Partial<AlarmSettings>;
  /**
   * The scheduled archive of raw readings past their plan's retention (archive.ts): the folder,
   * how often (0 never), and where retention comes from (the identity service's address, or a
   * source of the caller's). Absent: no archive job.
   */
  archive?: { dir: string; everyMs: number; retention: string | RawRetention };
  /**
   * Logger file imports (docs/imports.md): the largest file (MP_IMPORT_MAX_BYTES, 200 MB by
   * default), the tenant data-record counters the rows are paced by (shared with the gateways
   * through Redis when given one; per process otherwise), how often an idle worker looks for work
   * and its lease.
   */
  imports?: { maxBytes?: number; limits?: RateLimits; pollMs?: number; leaseSeconds?: number; concurrency?: number };
}

export interface RunningService {
  port: number;
  /** This replica's scheduled stale-data check (tests run it on a controlled clock). */
  staleSweep: StaleSweep;
  /** This replica's import worker (tests stop it half-way through a file). */
  importWorker: ImportWorker;
  /** This replica's archive job, when it has one. */
  archiver: Archiver | null;
  /**
   * The IngestVersions handler for a projects service in this process (the embedded default):
   * called in-process, its statement joins the projects transaction that hands the version over
   * on the one embedded database, which a call over gRPC would wait behind (ADR 0051).
   */
  ingestVersions: Pick<ReturnType<typeof ingestVersionsBinding>['handlers'], 'advanceIngestVersion' | 'scheduleRecompute'>;
  /** Stops the service; gRPC calls in flight get `graceMs` to finish (a drain gives them its whole bound). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts the monitoring-data gRPC service, its outbox relay and its batch worker on an already
 * migrated database. It keeps no state of its own beyond caches, so any number of replicas can
 * run against one database.
 */
export async function startMonitoringDataService(opts: MonitoringDataServiceOptions): Promise<RunningService> {
  const clock = opts.clock ?? systemClock;
  const client =
    typeof opts.projects === 'string'
      ? createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, opts.projects, {
          auth: opts.auth,
          audience: 'projects',
          deadlineMs: 10_000,
        })
      : opts.projects;
  const relay = new OutboxRelay({
    service: 'monitoring-data',
    db: opts.db,
    transport: opts.transport,
    logger: opts.logger,
    retentionMs: opts.outboxRetentionMs,
  });
  const versions = new IngestVersions(opts.db);
  let worker: BatchWorker | null = null;
  let importWorker: ImportWorker | null = null;
  const deps: DataDeps = {
    db: opts.db,
    relay,
    logger: opts.logger,
    clock,
    contexts: new IngestContexts(client, versions, opts.contextTtlMs ?? 2000, clock),
    access: new ProjectAccess(client),
    partitions: new Partitions(opts.db),
    knownPoints: new KnownPoints(),
    wakeBatches: () => worker?.wake(),
    batchChunk: opts.batchChunk ?? 1000,
    alarms: { ...DEFAULT_ALARM_SETTINGS, ...opts.alarms },
  };
  const staleSweep = new StaleSweep({ db: opts.db, clock, logger: opts.logger, relay }, deps.alarms.staleCheckMs);
  worker = new BatchWorker(deps, opts.batchPollMs ?? 1000);
  const ownLimits = opts.imports?.limits ? null : new RateLimits();
  importWorker = new ImportWorker(deps, {
    limits: opts.imports?.limits ?? ownLimits!,
    pollMs: opts.imports?.pollMs ?? opts.batchPollMs ?? 1000,
    ...(opts.imports?.leaseSeconds ? { leaseSeconds: opts.imports.leaseSeconds } : {}),
    ...(opts.imports?.concurrency ? { concurrency: opts.imports.concurrency } : {}),
  });
  const importSettings = { maxBytes: opts.imports?.maxBytes ?? DEFAULT_IMPORT_MAX_BYTES, wake: () => importWorker?.wake() };
  const folder = new RollupFolder(opts.db, opts.logger, opts.rollupFoldMs ?? 1000);
  let closeRetention = () => {};
  let archiver: Archiver | null = null;
  if (opts.archive) {
    let retention = opts.archive.retention;
    if (typeof retention === 'string') {
      const idClient = createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, retention, {
        auth: opts.auth,
        audience: 'identity',
        deadlineMs: 30_000,
      });
      closeRetention = () => (idClient as unknown as { close(): void }).close();
      retention = retentionFromIdentity(idClient);
    }
    archiver = new Archiver({ db: opts.db, logger: opts.logger, clock, dir: opts.archive.dir, retention }, opts.archive.everyMs);
  }
  const recompute = new RecomputeWorker(deps, opts.batchPollMs ?? 1000, opts.recomputeBatch);
  const ingestVersions = ingestVersionsBinding(versions, opts.db, () => recompute.wake());
  const server = await startGrpcServer({
    host: opts.host,
    port: opts.port,
    services: [monitoringDataBinding(deps, importSettings), ingestVersions],
    auth: opts.auth,
    logger: opts.logger,
    portSetting: 'MP_MONITORING_DATA_GRPC_PORT',
  });
  relay.start();
  worker.start();
  recompute.start();
  importWorker.start();
  staleSweep.start();
  folder.start();
  archiver?.start();
  return {
    port: server.port,
    staleSweep,
    importWorker,
    archiver,
    ingestVersions: ingestVersions.handlers,
    async stop(graceMs?: number) {
      await server.stop(graceMs);
      await staleSweep.stop();
      await worker!.stop();
      await recompute.stop();
      await importWorker!.stop();
      await (opts.imports?.limits ?? ownLimits)!.close();
      await folder.stop();
      await archiver?.stop();
      closeRetention();
      await relay.stop();
      if (typeof opts.projects === 'string') (client as unknown as { close(): void }).close();
    },
  };
}
