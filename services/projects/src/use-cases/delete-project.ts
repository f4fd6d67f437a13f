import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { checkVersion, projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { PROJECT_COLUMNS, toProject, type ProjectRow } from '../project-row.js';

/**
 * DELETE /projects/{id}: owners (or tenant-wide callers) only; removes its members, tasks and
 * points with it. An archived project is a record to keep: 422301.
 */
export async function deleteProject(deps: ProjectsDeps, req: projects.Ref, ctx: CallerContext): Promise<projects.Project> {
  const row = await deps.db.transaction(async (tx) => {
    const current = await projectFor(tx, ctx, req.id, 'manage', { lock: 'update' });
    checkVersion(current.version, req.expectedVersion, 'project');
    // Before the row goes: monitoring-data must stop using a cached context of it.
    await deps.ingestVersions.bump(tx, ctx, current.id);
    const { rows } = await tx.query<ProjectRow>(`DELETE FROM projects WHERE id = $1 RETURNING ${PROJECT_COLUMNS}`, [current.id]);
    return rows[0]!;
  });
  return toProject(row);
}
