import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { toProject } from '../project-row.js';

export async function getProject(deps: ProjectsDeps, req: projects.ProjectRef, ctx: CallerContext): Promise<projects.Project> {
  return toProject(await projectFor(deps.db, ctx, req.id, 'read'));
}
