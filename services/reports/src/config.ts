import { z } from 'zod';
import { envBoolean, envPort, parseConfig } from '@mp/kit';
import { mailConfigSchema, readExtraCa } from '@mp/mail';
import { infraSchema } from '@mp/runtime';

export const reportsConfigSchema = infraSchema.extend({
  MP_REPORTS_GRPC_PORT: envPort(50054),
  MP_GRPC_HOST: z.string().default('127.0.0.1'),
  /** Where the reports service reads project names and points (ADR 0025). */
  MP_PROJECTS_ADDR: z.string().default('127.0.0.1:50052'),
  /** Where it reads the records, series, latest values and alarms of a report's period. */
  MP_MONITORING_DATA_ADDR: z.string().default('127.0.0.1:50053'),
  /**
   * `false`: this process serves the API only and leaves generation to the other replicas (e.g.
   * API pods and worker pods scaled apart).
   */
  MP_REPORTS_GENERATE: envBoolean(true),
  /** Reports this process renders at once (each holds one project's data in memory). */
  MP_REPORTS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * How long a claimed generation stays with its process without a heartbeat; a process that
   * crashed leaves its report to another (or to itself once restarted) after this (ADR 0026).
   */
  MP_REPORTS_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** How often an idle worker looks for reports to generate (new requests also wake it at once). */
  MP_REPORTS_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(2000),
  /**
   * How often the scheduler looks for report schedules whose week or month ended (ADR 0109); a
   * period's report is asked for at most this long after the period ends.
   */
  MP_REPORTS_SCHEDULE_POLL_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  /**
   * What a scheduled report's mail carries as attachments, all its documents together (ADR 0115);
   * a document that does not fit is named in the mail with how to download it.
   */
  MP_REPORTS_MAIL_ATTACH_MAX_MB: z.coerce.number().int().min(0).max(50).default(10),
  // MP_SMTP_URL, MP_MAIL_FROM, NODE_EXTRA_CA_CERTS: the platform's mail settings (@mp/mail).
  ...mailConfigSchema.shape,
});

export type ReportsConfig = z.infer<typeof reportsConfigSchema>;

export const parseReportsConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(reportsConfigSchema, env);

/** The mail settings as startReportsService takes them. */
export const reportMailOptions = (config: ReportsConfig) => ({
  smtpUrl: config.MP_SMTP_URL,
  from: config.MP_MAIL_FROM,
  extraCa: readExtraCa(config.NODE_EXTRA_CA_CERTS),
  attachMaxBytes: config.MP_REPORTS_MAIL_ATTACH_MAX_MB * 1024 * 1024,
});
