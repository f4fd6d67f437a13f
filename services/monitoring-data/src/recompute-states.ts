import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import type { DataDeps } from './deps.js';
import { iso, type JobRow } from './recompute.js';

// What users see of the recomputation jobs (ADR 0116, 0117): the state of a calibration's job
// (GET /points/{id}/calibrations) and every job of a point (GET /points/{id}/recomputations).

/** GetRecomputeStates: the jobs of the named calibrations of a point the caller reads. */
export async function getRecomputeStates(
  deps: Pick<DataDeps, 'db' | 'contexts'>,
  req: monitoringData.RecomputeStatesRequest,
  caller: CallerContext,
): Promise<monitoringData.RecomputeStates> {
  if (!isId('point', req.pointId)) throw new DomainError('400004', { field: 'point_id', detail: 'point_id is not a monitoring point id (pt_…).' });
  if (req.calibrationIds.length > 100) throw new DomainError('400003', { field: 'calibration_ids', detail: 'At most 100 calibrations per call.' });
  await deps.contexts.forPoint(caller, req.pointId);
  const { rows } = await deps.db.query<JobRow>(
    `SELECT ${STATE_COLUMNS} FROM recompute_jobs
      WHERE point_id = $1 AND id = ANY($2::text[]) AND cause = 'calibration' AND tenant_id = $3 AND environment = $4`,
    [req.pointId, req.calibrationIds, caller.tenantId, caller.environment],
  );
  return { items: rows.map(stateOf) };
}

const STATE_COLUMNS = 'id, cause, created_by, valid_from, status, records, changed, created_at, started_at, finished_at';

function stateOf(r: JobRow): monitoringData.RecomputeState {
  return {
    calibrationId: r.cause === 'calibration' ? r.id : '',
    id: r.id,
    cause: r.cause,
    requestedBy: r.created_by,
    from: iso(r.valid_from),
    requestedAt: iso(r.created_at),
    // a failed job shows as done: it stopped, and changed what it recorded
    status: r.status === 'failed' ? 'done' : r.status,
    records: r.records,
    changed: r.changed,
    ...(r.started_at ? { startedAt: iso(r.started_at) } : {}),
    ...(r.finished_at ? { finishedAt: iso(r.finished_at) } : {}),
  };
}

/**
 * ListRecomputations: every job of a point the caller reads (calibrations and changes of its
 * derived channels), newest first, at most 100, with who caused it and from when it recomputes.
 */
export async function listRecomputations(
  deps: Pick<DataDeps, 'db' | 'contexts'>,
  req: monitoringData.RecomputationsRequest,
  caller: CallerContext,
): Promise<monitoringData.RecomputeStates> {
  if (!isId('point', req.pointId)) throw new DomainError('400004', { field: 'point_id', detail: 'point_id is not a monitoring point id (pt_…).' });
  await deps.contexts.forPoint(caller, req.pointId);
  const { rows } = await deps.db.query<JobRow>(
    `SELECT ${STATE_COLUMNS} FROM recompute_jobs WHERE point_id = $1 AND tenant_id = $2 AND environment = $3 ORDER BY created_at DESC, id LIMIT 100`,
    [req.pointId, caller.tenantId, caller.environment],
  );
  return { items: rows.map(stateOf) };
}
