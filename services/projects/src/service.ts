import type { Database } from '@mp/db';
import { OutboxRelay, type EventTransport } from '@mp/events';
import { startGrpcServer, type ServiceAuth } from '@mp/grpc';
import { systemClock, type Clock, type Logger } from '@mp/kit';
import { projectsBinding } from './handlers.js';
import { IngestVersionTarget, type IngestVersionSink } from './ingest-version.js';
import { OverdueSweep } from './overdue-sweep.js';

export interface ProjectsServiceOptions {
  db: Database;
  transport: EventTransport;
  /** This service's keyring (and mTLS material): who may call it, and how it calls others. */
  auth: ServiceAuth;
  logger: Logger;
  host?: string;
  port: number;
  clock?: Clock;
  /** Interval of the overdue sweep (MP_TASK_OVERDUE_SWEEP_MS); 0 = only on runOverdueSweep(). Default 30 s. */
  overdueSweepMs?: number;
  /** How long a published event stays in the outbox (MP_OUTBOX_RETENTION_HOURS); 24 h by default. */
  outboxRetentionMs?: number;
  /**
   * The monitoring-data service (MP_MONITORING_DATA_ADDR, or a client), told a project's new
   * ingest version before a change of it commits (ADR 0022). Unset: no one is told, e.g. when
   * projects runs alone or monitoring-data starts later (then `connectIngestVersions`).
   */
  ingestVersions?: string | IngestVersionSink;
}

export interface RunningService {
  port: number;
  /** Runs one overdue sweep now; resolves with the number of tasks this replica flagged. */
  runOverdueSweep(): Promise<number>;
  /** Names monitoring-data once it listens (in-process platforms start projects first). */
  connectIngestVersions(target: string | IngestVersionSink): void;
  /** Stops the service; gRPC calls in flight get `graceMs` to finish (a drain gives them its whole bound). */
  stop(graceMs?: number): Promise<void>;
}

/** Starts the projects gRPC service, its outbox relay and its overdue sweep on an already migrated database. */
export async function startProjectsService(opts: ProjectsServiceOptions): Promise<RunningService> {
  const relay = new OutboxRelay({ service: 'projects', db: opts.db, transport: opts.transport, logger: opts.logger, retentionMs: opts.outboxRetentionMs });
  const ingestVersions = new IngestVersionTarget(opts.auth);
  if (opts.ingestVersions) ingestVersions.connect(opts.ingestVersions);
  const deps = { db: opts.db, relay, logger: opts.logger, clock: opts.clock ?? systemClock, ingestVersions };
  const sweep = new OverdueSweep(deps, { intervalMs: opts.overdueSweepMs ?? 30_000 });
  const server = await startGrpcServer({
    host: opts.host,
    port: opts.port,
    services: [projectsBinding(deps)],
    auth: opts.auth,
    logger: opts.logger,
    portSetting: 'MP_PROJECTS_GRPC_PORT',
  });
  relay.start();
  sweep.start();
  return {
    port: server.port,
    runOverdueSweep: () => sweep.runOnce(),
    connectIngestVersions: (target) => ingestVersions.connect(target),
    async stop(graceMs?: number) {
      await sweep.stop();
      await server.stop(graceMs);
      await relay.stop();
      ingestVersions.close();
    },
  };
}
