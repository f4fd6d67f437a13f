import type { Database } from '@mp/db';
import { RateLimits } from '@mp/ratelimit';
import { openServiceDatabase, outboxRetentionMs } from '@mp/runtime';
import { alarmSettingsOf } from './alarms/config.js';
import { archiveOptionsOf, type MonitoringDataConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import type { MonitoringDataServiceOptions } from './service.js';

// The one place the monitoring-data service's settings become its start options. Both composition
// roots call these: the standalone process (process.ts) and the one-process platform
// (apps/platform), so a setting cannot be wired one way in a pod and another way under `npm start`.
// The addresses of projects and identity come from the config in both: the one-process platform
// parses it with the loopback ports its services got.

/** What the composition root opened or made: the keyring, the database, the transport, the logger. */
export type MonitoringDataInfra = Pick<MonitoringDataServiceOptions, 'auth' | 'db' | 'transport' | 'logger'>;

/** The service's database (its schema, migrated) with MP_MONITORING_DATA_DB_POOL connections. */
export function openMonitoringDataDatabase(config: MonitoringDataConfig): Promise<Database> {
  return openServiceDatabase(config, SCHEMA, migrations, { poolSize: config.MP_MONITORING_DATA_DB_POOL });
}

export function monitoringDataOptionsFrom(config: MonitoringDataConfig, infra: MonitoringDataInfra): MonitoringDataServiceOptions {
  return {
    ...infra,
    host: config.MP_GRPC_HOST,
    port: config.MP_MONITORING_DATA_GRPC_PORT,
    projects: config.MP_PROJECTS_ADDR,
    contextTtlMs: config.MP_MONITORING_DATA_CONTEXT_TTL_MS,
    batchChunk: config.MP_MONITORING_DATA_BATCH_CHUNK,
    outboxRetentionMs: outboxRetentionMs(config),
    alarms: alarmSettingsOf(config),
    ...archiveOptionsOf(config, infra.logger),
    // Imported rows count against the tenant's data-record limit with the gateways' counters.
    imports: {
      maxBytes: config.MP_IMPORT_MAX_BYTES,
      concurrency: config.MP_IMPORT_CONCURRENCY,
      ...(config.MP_REDIS_URL ? { limits: new RateLimits({ redisUrl: config.MP_REDIS_URL, prefix: config.MP_REDIS_PREFIX }) } : {}),
    },
  };
}
