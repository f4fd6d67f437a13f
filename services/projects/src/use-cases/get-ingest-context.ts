import { isGeodetic, type projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import { loadProject, requireAccess } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { POINT_COLUMNS, toPointSpec, type PointRow } from '../point-row.js';
import { toBoundsMessage, toProject } from '../project-row.js';
import { calibrationsOf } from '../calibrations.js';

/** Ids asked for at most per call: a data write of one request names at most this many points. */
const MAX_POINT_IDS = 10_000;

/**
 * For monitoring-data: the project (its status decides 422301/422303 there), its bounds (422201)
 * and the listed points' references, thresholds and limits. Access as everywhere: 404001, then
 * 403001 for a non-member and, when `for_write`, 403002 for a viewer. Unknown or malformed point
 * ids, and points of other projects, are simply absent. `version` is the project's ingest version
 * as read first, with the project row: the points and access read after it are at least as new.
 */
export async function getIngestContext(deps: ProjectsDeps, req: projects.IngestContextRequest, ctx: CallerContext): Promise<projects.IngestContext> {
  if (req.pointIds.length > MAX_POINT_IDS) {
    throw new DomainError('400003', { field: 'point_ids', detail: `At most ${MAX_POINT_IDS} point ids per call.` });
  }
  const project = await loadProject(deps.db, ctx, req.projectId);
  await requireAccess(deps.db, ctx, project, req.forWrite ? 'write' : 'read');
  const ids = [...new Set(req.pointIds.filter((id) => isId('point', id)))];
  const { rows } = ids.length
    ? await deps.db.query<PointRow>(`SELECT ${POINT_COLUMNS} FROM points WHERE project_id = $1 AND id = ANY($2::text[])`, [project.id, ids])
    : { rows: [] as PointRow[] };
  // Calibrations only for the types that convert a raw channel (one query for the points asked).
  const calibrations = await calibrationsOf(
    deps.db,
    rows.filter((r) => !isGeodetic(r.sensor_type)).map((r) => r.id),
  );
  return {
    project: toProject(project),
    ...(project.bounds ? { bounds: toBoundsMessage(project.bounds) } : {}),
    points: rows.map((r) => toPointSpec(r, calibrations.get(r.id))),
    version: Number(project.ingest_version),
  };
}
