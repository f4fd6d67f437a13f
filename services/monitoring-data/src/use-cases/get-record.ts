import type { monitoringData } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { loadRecord, toRecord } from '../record-row.js';

export async function getRecord(deps: DataDeps, req: monitoringData.RecordRef, caller: CallerContext): Promise<monitoringData.DataRecord> {
  const { row } = await loadRecord(deps, caller, req.id, false);
  return toRecord(row);
}
