import type { Database } from '@mp/db';
import { OutboxRelay, type EventTransport } from '@mp/events';
import { startGrpcServer, type ServiceAuth } from '@mp/grpc';
import { systemClock, type Clock, type Logger } from '@mp/kit';
import type { ReportsDeps } from './deps.js';
import { reportsBinding } from './handlers.js';
import { connectSources, type ReportSources } from './sources.js';
import { ReportMetrics } from './metrics.js';
import { GenerationWorker } from './worker.js';
import { createMailer } from '@mp/mail';
import type { ReportMailer } from './mailer.js';
import { SmtpReportMailer } from './report-mail.js';
import { ReportScheduler } from './scheduler.js';

export interface ReportsServiceOptions {
  db: Database;
  transport: EventTransport;
  /** This service's keyring (and mTLS material): who may call it, and how it calls others. */
  auth: ServiceAuth;
  logger: Logger;
  host?: string;
  port: number;
  /** projects and monitoring-data (MP_PROJECTS_ADDR, MP_MONITORING_DATA_ADDR), or ready clients. */
  sources: { projects: string; monitoringData: string } | ReportSources;
  clock?: Clock;
  /** Reports rendered at once by this process (MP_REPORTS_CONCURRENCY); 2 by default. */
  concurrency?: number;
  /** Lease of a claimed report (MP_REPORTS_LEASE_MS); 60 s by default. */
  leaseMs?: number;
  /** How often an idle worker looks for work (MP_REPORTS_POLL_MS); 2 s by default. */
  pollMs?: number;
  /** How long a published event stays in the outbox (MP_OUTBOX_RETENTION_HOURS); 24 h by default. */
  outboxRetentionMs?: number;
  /** false: serve the API only and leave generation to other replicas (MP_REPORTS_GENERATE). */
  generate?: boolean;
  /** How often the report scheduler looks for due schedules (MP_REPORTS_SCHEDULE_POLL_MS); 60 s by default. */
  schedulePollMs?: number;
  /** Mails scheduled reports once generated; by default the SMTP mailer of `mail` when it has a URL. */
  mailer?: ReportMailer | null;
  /** The platform's mail settings (MP_SMTP_URL, MP_MAIL_FROM, NODE_EXTRA_CA_CERTS, MP_REPORTS_MAIL_ATTACH_MAX_MB). */
  mail?: { smtpUrl?: string | undefined; from: string; extraCa?: string[] | undefined; attachMaxBytes?: number };
}

/** Starts the reports gRPC service, its outbox relay and its generation worker on a migrated database. */
export async function startReportsService(opts: ReportsServiceOptions) {
  const relay = new OutboxRelay({ service: 'reports', db: opts.db, transport: opts.transport, logger: opts.logger, retentionMs: opts.outboxRetentionMs });
  const sources = 'close' in opts.sources ? opts.sources : connectSources(opts.sources, opts.auth);
  let worker: GenerationWorker | null = null;
  const deps: ReportsDeps = {
    db: opts.db,
    relay,
    logger: opts.logger,
    clock: opts.clock ?? systemClock,
    sources,
    wakeWorker: () => worker?.wake(),
  };
  const metrics = new ReportMetrics();
  worker = new GenerationWorker(
    deps,
    opts.logger,
    { concurrency: opts.concurrency ?? 2, leaseMs: opts.leaseMs ?? 60_000, pollMs: opts.pollMs ?? 2000 },
    metrics,
  );
  // The scheduler runs where generation runs: an API-only replica leaves both to the workers.
  const smtp = opts.mail?.smtpUrl
    ? createMailer({ url: opts.mail.smtpUrl, from: opts.mail.from, ...(opts.mail.extraCa ? { extraCa: opts.mail.extraCa } : {}) })
    : null;
  const mailer = opts.mailer ?? (smtp ? new SmtpReportMailer(opts.db, smtp, opts.mail?.attachMaxBytes) : null);
  const scheduler = new ReportScheduler(deps, opts.logger, { pollMs: opts.schedulePollMs ?? 60_000, mailer });
  opts.logger.info({ mail_configured: mailer !== null }, 'scheduled report mail settings');
  const unwatch = metrics.watchQueue(opts.db);
  const server = await startGrpcServer({ host: opts.host, port: opts.port, services: [reportsBinding(deps)], auth: opts.auth, logger: opts.logger });
  relay.start();
  if (opts.generate !== false) {
    worker.start();
    scheduler.start();
  }
  return {
    port: server.port,
    deps,
    scheduler,
    async stop(graceMs?: number) {
      await server.stop(graceMs);
      await scheduler.stop();
      await worker!.stop();
      unwatch();
      await relay.stop();
      smtp?.close();
      sources.close();
    },
  };
}

export type RunningReportsService = Awaited<ReturnType<typeof startReportsService>>;
