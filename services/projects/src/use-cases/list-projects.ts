import { ListQuery } from '@mp/kit';
import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { actsTenantWide } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { PROJECT_COLUMNS, toProject, type ProjectRow } from '../project-row.js';
import { PROJECT_STATUSES } from '../transitions.js';
import { checkEnum, containsPattern } from '../validation.js';

/** Projects of the caller's tenant environment; a user who does not act tenant-wide sees only their projects. */
export async function listProjects(deps: ProjectsDeps, req: projects.ListProjectsRequest, ctx: CallerContext): Promise<projects.ProjectList> {
  const q = new ListQuery(req.page);
  q.and(`tenant_id = ${q.param(ctx.tenantId)}`).and(`environment = ${q.param(ctx.environment)}`);
  if (req.status !== undefined) q.and(`status = ${q.param(checkEnum(req.status, PROJECT_STATUSES, 'status'))}`);
  if (req.q) {
    const p = q.param(containsPattern(req.q));
    q.and(`(name ILIKE ${p} OR number ILIKE ${p})`);
  }
  if (!actsTenantWide(ctx)) q.and(`id IN (SELECT project_id FROM project_members WHERE user_id = ${q.param(ctx.principalId)})`);
  const { rows } = await deps.db.query<ProjectRow>(q.sql(`SELECT ${PROJECT_COLUMNS} FROM projects`), q.params);
  return q.result(rows, toProject);
}
