import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import type { ProjectsDeps } from '../deps.js';
import { PROJECT_COLUMNS, toProject, type ProjectRow } from '../project-row.js';

export async function getProject(deps: ProjectsDeps, req: projects.ProjectRef, ctx: CallerContext): Promise<projects.Project> {
  if (!isId('project', req.id)) {
    throw new DomainError('400004', { field: 'project_id', detail: 'project_id is not a project id (prj_…).', suggestion: 'Use the id returned when the project was created.' });
  }
  const { rows } = await deps.db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`, [req.id]);
  const row = rows[0];
  // Another tenant's or environment's project is reported as missing: its existence is not revealed.
  if (!row || row.tenant_id !== ctx.tenantId || row.environment !== ctx.environment) {
    throw new DomainError('404001', { field: 'project_id', detail: `Project ${req.id} does not exist.`, suggestion: 'Check the project id, or list projects with GET /projects.' });
  }
  return toProject(row);
}
