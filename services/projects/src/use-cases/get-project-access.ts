import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import { actsTenantWide, type Role } from '../access.js';
import type { ProjectsDeps } from '../deps.js';

/** Project ids asked for at most per call (one report, or a page of them, names a few). */
const MAX_PROJECT_IDS = 1000;

/**
 * For the reports service: which projects the caller reads, by the same rule as every project
 * route here (actsTenantWide, then membership). A tenant-wide caller gets no list: it reads every
 * project of its tenant environment, including reports of projects deleted since. Any other
 * caller gets its memberships in this tenant environment, only of `project_ids` when named.
 */
export async function getProjectAccess(deps: ProjectsDeps, req: projects.ProjectAccessRequest, ctx: CallerContext): Promise<projects.ProjectAccess> {
  if (req.projectIds.length > MAX_PROJECT_IDS) {
    throw new DomainError('400003', { field: 'project_ids', detail: `At most ${MAX_PROJECT_IDS} project ids per call.` });
  }
  if (actsTenantWide(ctx)) return { tenantWide: true, roles: [] };
  const ids = [...new Set(req.projectIds.filter((id) => isId('project', id)))];
  if (req.projectIds.length && !ids.length) return { tenantWide: false, roles: [] };
  const { rows } = await deps.db.query<{ project_id: string; role: Role }>(
    `SELECT project_id, role FROM project_members WHERE tenant_id = $1 AND environment = $2 AND user_id = $3${ids.length ? ' AND project_id = ANY($4::text[])' : ''}`,
    ids.length ? [ctx.tenantId, ctx.environment, ctx.principalId, ids] : [ctx.tenantId, ctx.environment, ctx.principalId],
  );
  return { tenantWide: false, roles: rows.map((r) => ({ projectId: r.project_id, role: r.role })) };
}
