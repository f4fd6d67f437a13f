import type { monitoringData } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { historyOf, loadAlarm, toAlarm } from '../alarms/alarm-view.js';

/** GET /alarms/{id}: the alarm with its history, oldest first. */
export async function getAlarm(deps: DataDeps, req: monitoringData.AlarmRef, caller: CallerContext): Promise<monitoringData.Alarm> {
  const { row } = await loadAlarm(deps, caller, req.id, false);
  return toAlarm(row, await historyOf(deps.db, row.id));
}
