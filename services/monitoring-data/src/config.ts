import { z } from 'zod';
import { envPort, parseConfig } from '@mp/kit';
import { infraSchema } from '@mp/runtime';
import { alarmConfigSchema } from './alarms/config.js';

export const monitoringDataConfigSchema = infraSchema.extend(alarmConfigSchema).extend({
  MP_MONITORING_DATA_GRPC_PORT: envPort(50053),
  MP_GRPC_HOST: z.string().default('127.0.0.1'),
  /** The projects service, asked for project state, point settings and access (GetIngestContext). */
  MP_PROJECTS_ADDR: z.string().default('127.0.0.1:50052'),
  /**
   * How long a replica may reuse what the projects service said about a project and its points.
   * Not a staleness window: a cached context older than the project's ingest version is never
   * used (ADR 0022), so changes reach the next request at once. 0 asks on every request.
   */
  MP_MONITORING_DATA_CONTEXT_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
  /** Connections to PostgreSQL per replica. */
  MP_MONITORING_DATA_DB_POOL: z.coerce.number().int().min(2).max(200).default(10),
  /** Records written per transaction while a batch is processed (one data.created each). */
  MP_MONITORING_DATA_BATCH_CHUNK: z.coerce.number().int().min(1).max(2000).default(1000),
});

export type MonitoringDataConfig = z.infer<typeof monitoringDataConfigSchema>;

export const parseMonitoringDataConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(monitoringDataConfigSchema, env);
