import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { loadSitePlan } from '../site-plan-row.js';

/** DELETE /projects/{id}/site-plan: the drawing and its placements; the console draws the points by their coordinates again. */
export async function deleteSitePlan(deps: ProjectsDeps, req: projects.SitePlanRef, ctx: CallerContext): Promise<projects.SitePlan> {
  return deps.db.transaction(async (tx) => {
    const project = await projectFor(tx, ctx, req.projectId, 'write', { lock: 'share' });
    const plan = await loadSitePlan(tx, project.id, { lock: true });
    await tx.query('DELETE FROM site_plans WHERE project_id = $1', [project.id]);
    return plan;
  });
}
