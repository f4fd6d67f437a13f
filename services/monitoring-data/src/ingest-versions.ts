import { projects } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import { bindService, type CallerPolicy } from '@mp/grpc';
import { scheduleRecompute } from './recompute-schedule.js';

/**
 * The newest ingest version of each project that the projects service has handed over (ADR 0022),
 * in this service's database so that every replica reads the same. The projects service writes
 * it through any one replica before the change commits; every use of a cached ingest context
 * first reads it here (one primary-key lookup), and a cached context older than it is fetched
 * again. A project never handed over reads as 0: any context is new enough.
 */
export class IngestVersions {
  constructor(private readonly db: Queryable) {}

  async required(projectId: string): Promise<number> {
    const { rows } = await this.db.query<{ version: string | number }>('SELECT version FROM ingest_versions WHERE project_id = $1', [projectId]);
    return rows[0] ? Number(rows[0].version) : 0;
  }

  /** Versions only grow: an older or repeated one (a retry, calls crossing) changes nothing. */
  async advance(projectId: string, version: number): Promise<number> {
    const { rows } = await this.db.query<{ version: string | number }>(
      `INSERT INTO ingest_versions (project_id, version) VALUES ($1, $2)
       ON CONFLICT (project_id) DO UPDATE SET version = GREATEST(ingest_versions.version, EXCLUDED.version), updated_at = now()
       RETURNING version`,
      [projectId, version],
    );
    return Number(rows[0]!.version);
  }
}

/** Only the projects service hands versions over. */
const CALLERS: CallerPolicy = { projects: ['advanceIngestVersion', 'scheduleRecompute'] };

export function ingestVersionsBinding(versions: IngestVersions, db: Queryable, wakeRecompute: () => void = () => {}) {
  return bindService<projects.IngestVersionsServer>(
    'mp.projects.IngestVersions',
    projects.IngestVersionsService,
    {
      advanceIngestVersion: async (req) => {
        if (!req.projectId || !Number.isSafeInteger(req.version) || req.version < 1) {
          throw new DomainError('400003', { field: 'version', detail: 'A project id and a positive version are required.' });
        }
        return { version: await versions.advance(req.projectId, req.version) };
      },
      // A calibration was added (ADR 0116): its recomputation job, handed over before it commits.
      scheduleRecompute: async (req, caller) => {
        await scheduleRecompute(db, req, caller);
        wakeRecompute();
        return {};
      },
    },
    CALLERS,
  );
}
