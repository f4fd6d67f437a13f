import type { projects } from '@mp/contracts';
import { createOnce } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { projectFor, ROLES } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { MEMBER_COLUMNS, toMember, type MemberRow } from '../member-row.js';
import { checkPhone } from '../people.js';
import { checkEnum, checkId, checkText } from '../validation.js';

/**
 * POST /projects/{id}/members: adds a user with a role, or changes the role (and display data) of
 * a member. Owners only. Name and phone are what events show as `changed_by`; the phone is kept
 * masked. The projects service does not own users: the gateway checks the user exists in the
 * tenant (404007) and passes its profile name as `default_name`, which only a new member takes.
 */
export async function addMember(deps: ProjectsDeps, req: projects.AddMemberRequest, ctx: CallerContext): Promise<projects.Member> {
  const userId = checkId('user', req.userId, 'user_id');
  const role = checkEnum(req.role, ROLES, 'role');
  const name = req.name !== undefined ? checkText(req.name, 'name', 1, 100) : null;
  const phone = req.phone !== undefined ? checkPhone(req.phone, 'phone') : null;
  const defaultName = req.defaultName ? req.defaultName.slice(0, 100) : null;
  // The default name comes from the user's profile, not from the client: a retry after the user
  // was renamed is still the same request.
  const asSent: Omit<projects.AddMemberRequest, 'defaultName'> & { defaultName?: string } = { ...req };
  delete asSent.defaultName;
  return createOnce(deps.db, deps.clock.now(), ctx, 'AddMember', asSent, async (tx) => {
    const project = await projectFor(tx, ctx, req.projectId, 'manage', { lock: 'update' });
    const now = deps.clock.now().toISOString();
    const { rows } = await tx.query<MemberRow>(
      `INSERT INTO project_members (project_id, tenant_id, environment, user_id, role, name, phone_masked, added_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
       ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role,
         name = COALESCE($10, project_members.name),
         phone_masked = COALESCE(EXCLUDED.phone_masked, project_members.phone_masked),
         updated_at = EXCLUDED.updated_at
       RETURNING ${MEMBER_COLUMNS}`,
      [project.id, ctx.tenantId, ctx.environment, userId, role, name ?? defaultName, phone, ctx.principalId, now, name],
    );
    await deps.ingestVersions.bump(tx, ctx, project.id);
    return toMember(rows[0]!);
  });
}
