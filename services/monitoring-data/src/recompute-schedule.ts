import type { projects } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';

// The recompute jobs' table and their hand-over by the projects service (ADR 0116); the worker
// that runs them is recompute.ts. A module of its own: ingest-versions.ts, which receives the
// hand-over, must not import the worker's dependencies.

export const RECOMPUTE_MIGRATION = {
  id: '021_recompute_jobs',
  sql: `
    -- One job per calibration (ADR 0116): recompute the point's readings from valid_from on.
    CREATE TABLE recompute_jobs (
      calibration_id text PRIMARY KEY,
      tenant_id text NOT NULL,
      environment text NOT NULL,
      project_id text NOT NULL,
      point_id text NOT NULL,
      valid_from timestamptz NOT NULL,
      -- who added the calibration; the job reads the point with their access
      created_by text NOT NULL,
      caller jsonb NOT NULL,
      -- pending | running | done | failed
      status text NOT NULL DEFAULT 'pending',
      -- measured_at of the last reading recomputed (readings are unique per point and instant)
      cursor_at timestamptz,
      records integer NOT NULL DEFAULT 0,
      changed integer NOT NULL DEFAULT 0,
      failure text,
      lease_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz
    );
    CREATE INDEX recompute_jobs_open ON recompute_jobs (created_at) WHERE status IN ('pending', 'running');
    CREATE INDEX recompute_jobs_point ON recompute_jobs (point_id);
  `,
};

/** ScheduleRecompute (from the projects service, in the calibration's transaction): idempotent per calibration. */
export async function scheduleRecompute(db: Queryable, req: projects.RecomputeRequest, caller: CallerContext): Promise<void> {
  if (!isId('calibration', req.calibrationId) || !isId('point', req.pointId) || !isId('project', req.projectId) || Number.isNaN(Date.parse(req.validFrom))) {
    throw new DomainError('400003', { field: 'calibration_id', detail: 'A calibration, point, project and valid_from are required.' });
  }
  await db.query(
    `INSERT INTO recompute_jobs (calibration_id, tenant_id, environment, project_id, point_id, valid_from, created_by, caller)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (calibration_id) DO NOTHING`,
    [req.calibrationId, caller.tenantId, caller.environment, req.projectId, req.pointId, req.validFrom, req.createdBy, JSON.stringify(caller)],
  );
}
