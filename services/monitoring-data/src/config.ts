import { join, resolve } from 'node:path';
import { z } from 'zod';
import { envPort, parseConfig, type Logger } from '@mp/kit';
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
  /** The identity service, asked for each tenant's raw retention (its plan's) by the archive job. */
  MP_IDENTITY_ADDR: z.string().default('127.0.0.1:50051'),
  /**
   * Where raw readings past their plan's retention are archived (gzip CSV) before they are
   * removed. Unset: MP_DATA_DIR/archive in the embedded default; with MP_DATABASE_URL, unset turns
   * the archive job off (readings are kept) rather than write into a container's own disk.
   */
  MP_ARCHIVE_DIR: z.string().min(1).optional(),
  /** How often each replica runs the archive job (one replica at a time); 0 never. */
  MP_ARCHIVE_INTERVAL_MS: z.coerce.number().int().min(0).max(604_800_000).default(3_600_000),
  /** Records written per transaction while a batch is processed (one data.created each). */
  MP_MONITORING_DATA_BATCH_CHUNK: z.coerce.number().int().min(1).max(2000).default(1000),
  /** The largest logger file an import takes (docs/imports.md#limits), bytes; 200 MB by default. */
  MP_IMPORT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024 * 1024)
    .default(200 * 1024 * 1024),
  /**
   * Chunks of one import stored at once, each in its own transaction on its own connection
   * (docs/imports.md#throughput): PostgreSQL stores some while the worker reads the next.
   */
  MP_IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(8).default(4),
  /** Prefix of the gateways' rate-limit counters in Redis (MP_REDIS_PREFIX of the gateway): imports count against the same. */
  MP_REDIS_PREFIX: z.string().default('mp:rl'),
});

/** The archive folder these settings name, or null when the archive job is off (see MP_ARCHIVE_DIR). */
export function archiveDirOf(config: MonitoringDataConfig): string | null {
  if (config.MP_ARCHIVE_DIR) return resolve(config.MP_ARCHIVE_DIR);
  return config.MP_DATABASE_URL ? null : join(resolve(config.MP_DATA_DIR), 'archive');
}

/** The archive job's options for startMonitoringDataService from these settings (none when off). */
export function archiveOptionsOf(config: MonitoringDataConfig, logger: Logger): { archive?: { dir: string; everyMs: number; retention: string } } {
  const dir = archiveDirOf(config);
  if (dir === null) {
    logger.info('raw readings are kept forever: no archive job without MP_ARCHIVE_DIR when MP_DATABASE_URL is set');
    return {};
  }
  return { archive: { dir, everyMs: config.MP_ARCHIVE_INTERVAL_MS, retention: config.MP_IDENTITY_ADDR } };
}

export type MonitoringDataConfig = z.infer<typeof monitoringDataConfigSchema>;

export const parseMonitoringDataConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(monitoringDataConfigSchema, env);
