import { actsTenantWide, type projects } from '@mp/contracts';
import type { CallerContext, PromiseClient } from '@mp/grpc';

export type ProjectAccessClient = Pick<PromiseClient<projects.ProjectsServer>, 'getProjectAccess'>;

/**
 * Which projects a caller reads, as the projects service decides it for every project route
 * (GetProjectAccess, ADR 0060): `null` for a caller that reads every project of its tenant
 * environment, otherwise the ids of the projects it is a member of (only of `projectIds` when any
 * are named). Asked on every use, never cached: a removed member loses the alarms at once. A
 * caller that acts tenant-wide by the signed caller context alone (an API key, the operator, a
 * `system:admin` user: the projects service's own rule, shared through @mp/contracts) is answered
 * without the call, as GetProjectAccess would answer it (ADR 0119).
 */
export class ProjectAccess {
  constructor(private readonly client: ProjectAccessClient) {}

  async readable(caller: CallerContext, projectIds: string[] = []): Promise<string[] | null> {
    if (actsTenantWide(caller)) return null;
    const access = await this.client.getProjectAccess({ projectIds }, caller);
    return access.tenantWide ? null : access.roles.map((r) => r.projectId);
  }
}
