import type { projects } from '@mp/contracts';
import { createOnce } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import { checkCalibration, insertCalibration, toCalibration } from '../calibrations.js';
import type { ProjectsDeps } from '../deps.js';
import { loadPoint } from '../point-row.js';

/**
 * POST /points/{id}/calibrations (ADR 0116): checks the calibration against the point's type,
 * stores it with who added it, bumps the project's ingest version (the very next write on any
 * replica converts with it) and schedules the recomputation of the point's stored readings from
 * its valid_from on, all before the change commits: an answered calibration always has both.
 */
export async function addCalibration(deps: ProjectsDeps, req: projects.AddCalibrationRequest, ctx: CallerContext): Promise<projects.Calibration> {
  const peek = await loadPoint(deps.db, ctx, req.pointId);
  const checked = checkCalibration(req.calibration, peek.sensor_type, '');
  // Idempotency-Key honoured as for every creating write (ADR 0012).
  return createOnce(deps.db, deps.clock.now(), ctx, 'AddCalibration', req, async (tx) => {
    const project = await projectFor(tx, ctx, peek.project_id, 'write', { lock: 'update' });
    const point = await loadPoint(tx, ctx, req.pointId, { lock: true });
    const row = await insertCalibration(tx, ctx, point.id, checked, deps.clock.now().toISOString(), '');
    const calibration = toCalibration(row, point.sensor_type);
    await deps.ingestVersions.scheduleRecompute(ctx, {
      calibrationId: calibration.id,
      projectId: project.id,
      pointId: point.id,
      validFrom: calibration.validFrom,
      createdBy: calibration.createdBy,
      cause: 'calibration',
      minVersion: 0,
    });
    await deps.ingestVersions.bump(tx, ctx, project.id);
    return calibration;
  });
}
