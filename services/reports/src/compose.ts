import type { Database } from '@mp/db';
import { openServiceDatabase, outboxRetentionMs } from '@mp/runtime';
import { reportMailOptions, type ReportsConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import type { ReportsServiceOptions } from './service.js';

// The one place the reports service's settings become its start options. Both composition roots
// call these: the standalone process (process.ts) and the one-process platform (apps/platform),
// so a setting cannot be wired one way in a pod and another way under `npm start`. The addresses
// of projects and monitoring-data come from the config in both: the one-process platform parses
// it with the loopback ports its services got.

/** What the composition root opened or made: the keyring, the database, the transport, the logger. */
export type ReportsInfra = Pick<ReportsServiceOptions, 'auth' | 'db' | 'transport' | 'logger'>;

/** The service's database (its schema, migrated) with the default pool. */
export function openReportsDatabase(config: ReportsConfig): Promise<Database> {
  return openServiceDatabase(config, SCHEMA, migrations);
}

export function reportsOptionsFrom(config: ReportsConfig, infra: ReportsInfra): ReportsServiceOptions {
  return {
    ...infra,
    host: config.MP_GRPC_HOST,
    port: config.MP_REPORTS_GRPC_PORT,
    sources: { projects: config.MP_PROJECTS_ADDR, monitoringData: config.MP_MONITORING_DATA_ADDR },
    concurrency: config.MP_REPORTS_CONCURRENCY,
    leaseMs: config.MP_REPORTS_LEASE_MS,
    pollMs: config.MP_REPORTS_POLL_MS,
    schedulePollMs: config.MP_REPORTS_SCHEDULE_POLL_MS,
    generate: config.MP_REPORTS_GENERATE,
    outboxRetentionMs: outboxRetentionMs(config),
    mail: reportMailOptions(config),
  };
}
