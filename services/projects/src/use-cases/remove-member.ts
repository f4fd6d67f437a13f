import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { MEMBER_COLUMNS, toMember, type MemberRow } from '../member-row.js';
import { checkId } from '../validation.js';

/** DELETE /projects/{id}/members/{user_id}: owners only; 404007 when the user is not a member. */
export async function removeMember(deps: ProjectsDeps, req: projects.RemoveMemberRequest, ctx: CallerContext): Promise<projects.Member> {
  const userId = checkId('user', req.userId, 'user_id');
  const row = await deps.db.transaction(async (tx) => {
    const project = await projectFor(tx, ctx, req.projectId, 'manage', { lock: 'update' });
    const { rows } = await tx.query<MemberRow>(`DELETE FROM project_members WHERE project_id = $1 AND user_id = $2 RETURNING ${MEMBER_COLUMNS}`, [
      project.id,
      userId,
    ]);
    if (!rows[0]) {
      throw new DomainError('404007', {
        field: 'user_id',
        detail: `User ${userId} is not a member of project ${project.id}.`,
        suggestion: 'List the members with GET /projects/{project_id}/members.',
      });
    }
    await deps.ingestVersions.bump(tx, ctx, project.id);
    return rows[0];
  });
  return toMember(row);
}
