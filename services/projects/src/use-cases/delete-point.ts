import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { checkVersion, projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { loadPoint, POINT_COLUMNS, toPoint, type PointRow } from '../point-row.js';

/** DELETE /points/{id}. To stop a point taking data but keep it, PATCH it with active: false instead. */
export async function deletePoint(deps: ProjectsDeps, req: projects.Ref, ctx: CallerContext): Promise<projects.Point> {
  const row = await deps.db.transaction(async (tx) => {
    const peek = await loadPoint(tx, ctx, req.id);
    const project = await projectFor(tx, ctx, peek.project_id, 'write', { lock: 'update' });
    const current = await loadPoint(tx, ctx, req.id, { lock: true });
    checkVersion(current.version, req.expectedVersion, 'point');
    const { rows } = await tx.query<PointRow>(`DELETE FROM points WHERE id = $1 RETURNING ${POINT_COLUMNS}`, [current.id]);
    await deps.ingestVersions.bump(tx, ctx, project.id);
    return rows[0]!;
  });
  return toPoint(row);
}
