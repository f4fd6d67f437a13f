import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { NotificationDeps } from './settings.js';

/**
 * The caller's access to a project, as the projects service decides it (docs/security.md): the
 * project must exist in the caller's tenant environment and be one the caller reads (404001,
 * 403001, 403003 from GET /projects/{id}); for `write`, a viewer is refused (403002). A rule
 * mails a project's alarms, so who may read the project's rules and change them follows who may
 * read and change the project.
 */
export async function requireProjectAccess(
  deps: Pick<NotificationDeps, 'sources'>,
  ctx: CallerContext,
  projectId: string,
  need: 'read' | 'write',
): Promise<void> {
  const { projects } = deps.sources();
  await projects.getProject({ id: projectId }, ctx);
  if (need === 'read') return;
  const access = await projects.getProjectAccess({ projectIds: [projectId] }, ctx);
  if (access.tenantWide) return;
  const role = access.roles.find((r) => r.projectId === projectId)?.role;
  if (!role) {
    throw new DomainError('403001', {
      field: 'project_id',
      detail: `You are not a member of project ${projectId}.`,
      suggestion: "Ask one of the project's owners to add you with POST /projects/{project_id}/members.",
    });
  }
  if (role === 'viewer') {
    throw new DomainError('403002', {
      field: 'project_id',
      detail: `Your role in project ${projectId} (viewer) is read-only.`,
      suggestion: 'Ask a project owner to give you the editor role.',
    });
  }
}

/**
 * A rule sends the project's alarm readings to its recipients and gives each a link that
 * acknowledges the alarm: its maker must hold what reading and acknowledging alarms need
 * (data:read, data:write), or a narrow key could hand out more than it holds (401004).
 */
export const RULE_MAKER_PERMISSIONS = ['data:read', 'data:write'] as const;

export function requireRuleMakerPermissions(ctx: CallerContext): void {
  const missing = RULE_MAKER_PERMISSIONS.filter((p) => !ctx.permissions.includes(p));
  if (missing.length === 0) return;
  throw new DomainError('401004', {
    detail: `A notification rule mails alarm readings and acknowledge links; making one needs ${missing.join(' and ')}, which you do not hold.`,
    suggestion: 'Use a key or user that holds data:read and data:write as well as project:write.',
  });
}
