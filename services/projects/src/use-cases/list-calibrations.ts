import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import { calibrationsOf, toCalibration } from '../calibrations.js';
import type { ProjectsDeps } from '../deps.js';
import { loadPoint } from '../point-row.js';

/** GET /points/{id}/calibrations: every calibration of the point (at most 100), newest valid_from first. */
export async function listCalibrations(deps: ProjectsDeps, req: projects.Ref, ctx: CallerContext): Promise<projects.CalibrationList> {
  const point = await loadPoint(deps.db, ctx, req.id);
  await projectFor(deps.db, ctx, point.project_id, 'read');
  const rows = (await calibrationsOf(deps.db, [point.id])).get(point.id) ?? [];
  return { items: rows.map((r) => toCalibration(r, point.sensor_type)) };
}
