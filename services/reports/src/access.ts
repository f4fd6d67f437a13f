import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { ReportsDeps } from './deps.js';
import { loadReport, type ReportRow } from './report-row.js';

/**
 * A report shows its project's data, so it follows the project's access as the projects service
 * decides it (docs/security.md): a caller that does not act tenant-wide reaches only reports of
 * projects it is a member of. `null`: every project of the caller's tenant environment.
 */
export async function readableProjects(deps: ReportsDeps, ctx: CallerContext, projectIds: string[] = []): Promise<Map<string, string> | null> {
  const access = await deps.sources.projects.getProjectAccess({ projectIds }, ctx);
  return access.tenantWide ? null : new Map(access.roles.map((r) => [r.projectId, r.role]));
}

/**
 * A report of the caller's tenant environment (404005 otherwise) whose project the caller reads:
 * 403001 when it is not a member; for `write` (reviews) 403002 when it is a viewer, whose role in
 * the project is read-only.
 */
export async function loadReadableReport(deps: ReportsDeps, id: string, ctx: CallerContext, need: 'read' | 'write' = 'read'): Promise<ReportRow> {
  const row = await loadReport(deps.db, id, ctx);
  const roles = await readableProjects(deps, ctx, [row.project_id]);
  if (roles === null) return row;
  const role = roles.get(row.project_id);
  if (!role) {
    throw new DomainError('403001', {
      field: 'report_id',
      detail: `Report ${row.id} is of a project you are not a member of.`,
      suggestion: "Ask one of the project's owners to add you with POST /projects/{project_id}/members.",
    });
  }
  if (need === 'write' && role === 'viewer') {
    throw new DomainError('403002', {
      field: 'report_id',
      detail: `Your role in the project of report ${row.id} (viewer) is read-only.`,
      suggestion: 'Ask a project owner to give you the editor role.',
    });
  }
  return row;
}
