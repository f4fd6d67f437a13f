import type { monitoringData } from '@mp/contracts';
import { appendEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { createdRecord } from '../events.js';
import { checkProjectAcceptsData } from '../record-rules.js';
import { loadRecord, toRecord } from '../record-row.js';
import { recomputeRollups } from '../rollups.js';
import { checkVersion, eventRecordOf } from './update-record.js';

/**
 * DELETE /data/{id}: removes the record (so the point and instant can be written again) and
 * writes data.updated with `change: "deleted"` and the record as it was, so subscribers that
 * mirror data can drop it. Returns the deleted record.
 */
export async function deleteRecord(deps: DataDeps, req: monitoringData.RecordRef, caller: CallerContext): Promise<monitoringData.DataRecord> {
  const { row, ctx } = await loadRecord(deps, caller, req.id, true);
  checkProjectAcceptsData(ctx);
  checkVersion(row, req.expectedVersion);
  const point = ctx.points.get(row.point_id) ?? { id: row.point_id, name: '', sensorType: '', warning: 0, alarm: 0 };
  const now = deps.clock.now().toISOString();
  await deps.db.transaction(async (tx) => {
    const { rowCount } = await tx.query('DELETE FROM data_records WHERE id = $1 AND measured_at = $2', [row.id, row.measured_at]);
    if (rowCount === 0) return;
    await recomputeRollups(tx, row.point_id, Date.parse(row.measured_at));
    await appendEvent(tx, {
      type: 'data.updated',
      tenantId: caller.tenantId,
      environment: caller.environment,
      occurredAt: now,
      ...(caller.traceparent ? { traceparent: caller.traceparent } : {}),
      data: {
        project_id: ctx.project.id,
        project_name: ctx.project.name,
        change: 'deleted',
        changed_fields: [],
        records: [createdRecord(eventRecordOf(row, point))],
      },
    });
  });
  deps.relay.kick();
  return toRecord(row);
}
