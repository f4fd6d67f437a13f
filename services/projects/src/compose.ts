import type { Database } from '@mp/db';
import { openServiceDatabase, outboxRetentionMs } from '@mp/runtime';
import type { ProjectsConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import type { ProjectsServiceOptions } from './service.js';

// The one place the projects service's settings become its start options. Both composition roots
// call these: the standalone process (process.ts) and the one-process platform (apps/platform),
// so a setting cannot be wired one way in a pod and another way under `npm start`.

/** What the composition root opened or made: the keyring, the database, the transport, the logger. */
export type ProjectsInfra = Pick<ProjectsServiceOptions, 'auth' | 'db' | 'transport' | 'logger'>;

/**
 * The one difference of the one-process platform: monitoring-data starts after projects there, so
 * it cannot be named at the start; the platform hands it over with `connectIngestVersions` once
 * it listens (in-process, so that the hand-over joins the projects transaction on the one
 * embedded database, ADR 0051).
 */
export interface ProjectsInOneProcess {
  ingestVersionsLater: true;
}

/** The service's database (its schema, migrated) with the default pool. */
export function openProjectsDatabase(config: ProjectsConfig): Promise<Database> {
  return openServiceDatabase(config, SCHEMA, migrations);
}

export function projectsOptionsFrom(config: ProjectsConfig, infra: ProjectsInfra, inOneProcess?: ProjectsInOneProcess): ProjectsServiceOptions {
  return {
    ...infra,
    host: config.MP_GRPC_HOST,
    port: config.MP_PROJECTS_GRPC_PORT,
    overdueSweepMs: config.MP_TASK_OVERDUE_SWEEP_MS,
    outboxRetentionMs: outboxRetentionMs(config),
    ...(inOneProcess?.ingestVersionsLater ? {} : { ingestVersions: config.MP_MONITORING_DATA_ADDR }),
  };
}
