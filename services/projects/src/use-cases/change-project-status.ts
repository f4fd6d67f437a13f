import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { checkVersion, projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { emit, projectStatusChanged } from '../events.js';
import { personIn } from '../people.js';
import { PROJECT_COLUMNS, toProject, type ProjectRow } from '../project-row.js';
import { assertTransition, PROJECT_COMPLETION_STATUSES, PROJECT_STATUSES, PROJECT_TRANSITIONS, type ProjectStatus } from '../transitions.js';
import { checkEnum, checkOptionalText } from '../validation.js';

/**
 * PUT /projects/{id}/status: one move of the transition table. Raises project.status_changed,
 * and project.completed as well when the project is completed or archived.
 */
export async function changeProjectStatus(deps: ProjectsDeps, req: projects.ChangeStatusRequest, ctx: CallerContext): Promise<projects.Project> {
  const status = checkEnum(req.status, PROJECT_STATUSES, 'status');
  const remark = checkOptionalText(req.remark, 'remark', 500) ?? '';
  const row = await deps.db.transaction(async (tx) => {
    // projectFor refuses an archived project with 422301 before the table is consulted.
    const current = await projectFor(tx, ctx, req.id, 'write', { lock: 'update' });
    checkVersion(current.version, req.expectedVersion, 'project');
    const previous = current.status as ProjectStatus;
    assertTransition(PROJECT_TRANSITIONS, previous, status, 'project');
    const now = deps.clock.now().toISOString();
    const { rows } = await tx.query<ProjectRow>(
      `UPDATE projects SET status = $2, updated_at = $3, version = version + 1 WHERE id = $1 RETURNING ${PROJECT_COLUMNS}`,
      [current.id, status, now],
    );
    const payload = projectStatusChanged(current, previous, status, await personIn(tx, current.id, ctx.principalId), now, remark);
    await emit(tx, ctx, 'project.status_changed', now, payload);
    if (PROJECT_COMPLETION_STATUSES.includes(status)) await emit(tx, ctx, 'project.completed', now, payload);
    await deps.ingestVersions.bump(tx, ctx, current.id);
    return rows[0]!;
  });
  deps.relay.kick();
  return toProject(row);
}
