import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { loadSitePlan } from '../site-plan-row.js';

/** GET /projects/{id}/site-plan: any member of the project (404040 when it has none). */
export async function getSitePlan(deps: ProjectsDeps, req: projects.SitePlanRef, ctx: CallerContext): Promise<projects.SitePlan> {
  const project = await projectFor(deps.db, ctx, req.projectId, 'read');
  return loadSitePlan(deps.db, project.id, { withImage: req.withImage });
}
