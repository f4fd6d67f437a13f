import { actsTenantWide, MEMBER_ROLES, type MemberRole } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { PROJECT_COLUMNS, type ProjectRow } from './project-row.js';
import { inScope } from './scope.js';
import { checkId } from './validation.js';

/** A member's role: the shared vocabulary's. */
export const ROLES = MEMBER_ROLES;
export type Role = MemberRole;

/** read: any member; write: owner or editor; manage (members, deletion): owner. */
export type Need = 'read' | 'write' | 'manage';

/** Who needs no membership (docs/adr/0007): one definition, in @mp/contracts, that other services apply too. */
export { actsTenantWide };

/** The caller's project: 404001 when unknown in this environment, 403003 when another tenant's. */
export async function loadProject(q: Queryable, ctx: CallerContext, id: string, opts: { lock?: 'update' | 'share'; field?: string } = {}): Promise<ProjectRow> {
  const field = opts.field ?? 'project_id';
  checkId('project', id, field);
  const lock = opts.lock === 'update' ? ' FOR UPDATE' : opts.lock === 'share' ? ' FOR SHARE' : '';
  const { rows } = await q.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1${lock}`, [id]);
  return inScope(
    rows[0],
    ctx,
    field,
    () =>
      new DomainError('404001', { field, detail: `Project ${id} does not exist.`, suggestion: 'Check the project id, or list projects with GET /projects.' }),
  );
}

/** The caller's role in the project, or null when the caller acts tenant-wide. */
export async function requireAccess(q: Queryable, ctx: CallerContext, project: ProjectRow, need: Need): Promise<Role | null> {
  if (actsTenantWide(ctx)) return null;
  const { rows } = await q.query<{ role: Role }>('SELECT role FROM project_members WHERE project_id = $1 AND user_id = $2', [project.id, ctx.principalId]);
  const role = rows[0]?.role;
  if (!role) {
    throw new DomainError('403001', {
      field: 'project_id',
      detail: `You are not a member of project ${project.id}.`,
      suggestion: "Ask one of the project's owners to add you with POST /projects/{project_id}/members.",
    });
  }
  if ((need === 'write' && role === 'viewer') || (need === 'manage' && role !== 'owner')) {
    throw new DomainError('403002', {
      field: 'project_id',
      detail:
        need === 'manage'
          ? `Only owners of project ${project.id} may do this; your role is ${role}.`
          : `Your role in project ${project.id} (viewer) is read-only.`,
      suggestion: need === 'manage' ? 'Ask a project owner to do it, or to make you an owner.' : 'Ask a project owner to give you the editor role.',
    });
  }
  return role;
}

/** An archived project refuses every modification (422301, docs/rules.md#project-rules). */
export function assertNotArchived(project: ProjectRow): void {
  if (project.status === 'archived') {
    throw new DomainError('422301', { field: 'project_id', detail: `Project ${project.id} is archived and cannot be modified.` });
  }
}

/**
 * Loads the project and checks the caller may do `need` there; every need but `read` also
 * requires that the project is not archived. Writes lock the project row so a concurrent status
 * change (pause, archive) cannot slip between the check and the change.
 */
export async function projectFor(
  q: Queryable,
  ctx: CallerContext,
  id: string,
  need: Need,
  opts: { lock?: 'update' | 'share'; field?: string } = {},
): Promise<ProjectRow> {
  const lock = opts.lock ?? (need === 'read' ? undefined : 'share');
  const project = await loadProject(q, ctx, id, { ...opts, ...(lock ? { lock } : {}) });
  await requireAccess(q, ctx, project, need);
  if (need !== 'read') assertNotArchived(project);
  return project;
}

/** Optimistic concurrency (docs/rules.md#optimistic-concurrency): a stale expected version is 409004. */
export function checkVersion(current: number, expected: number | undefined, what: string): void {
  if (expected !== undefined && expected !== current) {
    throw new DomainError('409004', {
      field: 'version',
      detail: `The ${what} is at version ${current}; the request was based on version ${expected}.`,
      suggestion: `Reload the ${what} with GET, reapply your change and send it with version ${current}.`,
    });
  }
}
