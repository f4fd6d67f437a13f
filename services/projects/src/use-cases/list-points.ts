import { ListQuery } from '@mp/kit';
import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { POINT_COLUMNS, SENSOR_TYPES, toPoint, type PointRow } from '../point-row.js';
import { checkEnum, checkId, containsPattern } from '../validation.js';

/** GET /projects/{id}/points with filters sensor_type, active, device_id and q (number or name). */
export async function listPoints(deps: ProjectsDeps, req: projects.ListPointsRequest, ctx: CallerContext): Promise<projects.PointList> {
  const project = await projectFor(deps.db, ctx, req.projectId, 'read');
  const q = new ListQuery(req.page);
  q.and(`project_id = ${q.param(project.id)}`);
  if (req.sensorType !== undefined) q.and(`sensor_type = ${q.param(checkEnum(req.sensorType, SENSOR_TYPES, 'sensor_type'))}`);
  if (req.active !== undefined) q.and(`active = ${q.param(req.active)}`);
  if (req.deviceId !== undefined) q.and(`device_id = ${q.param(checkId('device', req.deviceId, 'device_id'))}`);
  if (req.q) {
    const p = q.param(containsPattern(req.q));
    q.and(`(number ILIKE ${p} OR name ILIKE ${p})`);
  }
  const { rows } = await deps.db.query<PointRow>(q.sql(`SELECT ${POINT_COLUMNS} FROM points`), q.params);
  return q.result(rows, toPoint);
}
