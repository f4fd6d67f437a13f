import type { monitoringData } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { checkAlarmFilters, listAlarmPage } from '../alarms/alarm-list-query.js';
import { requireId } from '../project-id.js';

/**
 * GET /projects/{id}/alarms: newest opened first, filtered by status, level, point and the time
 * they were opened ([from, to)), paged by (opened_at, id) cursors on the (project_id, opened_at)
 * index.
 */
export async function listAlarms(deps: DataDeps, req: monitoringData.ListAlarmsRequest, caller: CallerContext): Promise<monitoringData.AlarmList> {
  const projectId = requireId('project', req.projectId);
  checkAlarmFilters(req);
  await deps.contexts.get(caller, projectId, [], false);
  return listAlarmPage(deps.db, caller, [projectId], req);
}
