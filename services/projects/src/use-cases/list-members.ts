import { ListQuery } from '@mp/kit';
import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { projectFor, ROLES } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { MEMBER_COLUMNS, toMember, type MemberRow } from '../member-row.js';
import { checkEnum } from '../validation.js';

export async function listMembers(deps: ProjectsDeps, req: projects.ListMembersRequest, ctx: CallerContext): Promise<projects.MemberList> {
  const project = await projectFor(deps.db, ctx, req.projectId, 'read');
  const q = new ListQuery(req.page, { idColumn: 'user_id' });
  q.and(`project_id = ${q.param(project.id)}`);
  if (req.role !== undefined) q.and(`role = ${q.param(checkEnum(req.role, ROLES, 'role'))}`);
  const { rows } = await deps.db.query<MemberRow>(q.sql(`SELECT ${MEMBER_COLUMNS} FROM project_members`), q.params);
  return q.result(rows, toMember, (r) => r.user_id);
}
