import type { monitoringData } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { checkAlarmFilters, listAlarmPage } from '../alarms/alarm-list-query.js';
import { requireId } from '../project-id.js';

/**
 * GET /alarms, the tenant's alarm inbox (ADR 0087): the alarms of every project the caller reads.
 * A caller that is not tenant-wide is limited to its memberships in the query itself, so pages
 * and cursors stay right; a project_id filter naming a project it does not read lists nothing
 * (as GET /projects and GET /reports do), revealing neither the project nor its alarms.
 */
export async function listTenantAlarms(deps: DataDeps, req: monitoringData.ListTenantAlarmsRequest, caller: CallerContext): Promise<monitoringData.AlarmList> {
  const named = req.projectId !== undefined ? requireId('project', req.projectId) : undefined;
  checkAlarmFilters(req);
  const readable = await deps.access.readable(caller, named ? [named] : []);
  const projectIds = readable === null ? (named ? [named] : null) : named ? readable.filter((id) => id === named) : readable;
  if (projectIds !== null && projectIds.length === 0) return { items: [], page: { hasMore: false } };
  return listAlarmPage(deps.db, caller, projectIds, req);
}
