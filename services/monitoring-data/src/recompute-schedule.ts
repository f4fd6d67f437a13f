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

/**
 * Jobs not tied to a calibration (ADR 0117: a point's derived channels changed): the key becomes
 * the job's `id` (a calibration's id for a calibration), with the cause beside it; a job of
 * derived channels waits for the project's ingest version its change came with; and the alarms
 * its replay carries from one batch to the next (alarms/recompute-alarms.ts).
 */
export const RECOMPUTE_CAUSES_MIGRATION = {
  id: '042_recompute_causes',
  sql: `
    ALTER TABLE recompute_jobs RENAME COLUMN calibration_id TO id;
    ALTER TABLE recompute_jobs ADD COLUMN cause text NOT NULL DEFAULT 'calibration';
    ALTER TABLE recompute_jobs ADD COLUMN min_version bigint;
    ALTER TABLE recompute_jobs ADD COLUMN pending_alarm text;
    -- the alarm the job opened whose opening run of readings reached its last batch's end
    ALTER TABLE recompute_jobs ADD COLUMN opening_alarm text;
  `,
};

/**
 * ScheduleRecompute (from the projects service, in the transaction of the change): idempotent per
 * calibration, or per point and ingest version for a change of its derived channels.
 */
export async function scheduleRecompute(db: Queryable, req: projects.RecomputeRequest, caller: CallerContext): Promise<void> {
  const cause = req.cause || 'calibration';
  const pointOk = isId('point', req.pointId) && isId('project', req.projectId) && !Number.isNaN(Date.parse(req.validFrom));
  if (cause === 'calibration' ? !pointOk || !isId('calibration', req.calibrationId) : cause !== 'derived_channels' || !pointOk || !(req.minVersion > 0)) {
    throw new DomainError('400003', {
      field: 'calibration_id',
      detail: 'A point, project and valid_from are required, with a calibration (cause calibration) or an ingest version (cause derived_channels).',
    });
  }
  const id = cause === 'calibration' ? req.calibrationId : `${req.pointId}@${req.minVersion}`;
  await db.query(
    `INSERT INTO recompute_jobs (id, cause, min_version, tenant_id, environment, project_id, point_id, valid_from, created_by, caller)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
    [
      id,
      cause,
      cause === 'calibration' ? null : req.minVersion,
      caller.tenantId,
      caller.environment,
      req.projectId,
      req.pointId,
      req.validFrom,
      req.createdBy,
      JSON.stringify(caller),
    ],
  );
}
