import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { storeWrite, validateWrite } from '../ingest.js';
import { formatMeasuredAt } from '../measured-at.js';
import { requireId } from '../project-id.js';
import { checkProjectAcceptsData, type RecordFailure } from '../record-rules.js';

/**
 * Records per synchronous write. The whole request becomes one data.created event (and one
 * data.abnormal), and a JetStream message carries at most 1 MB by default: 1,000 records of at
 * most ~500 bytes each (long point names included) stay below it. Larger uploads go to
 * POST /projects/{id}/data/batches, processed in chunks of the same size.
 */
export const MAX_RECORDS_PER_WRITE = 1000;

const refuse = (f: RecordFailure) => new DomainError(f.code, { field: f.field, detail: f.detail, ...(f.suggestion ? { suggestion: f.suggestion } : {}) });

/** All-or-nothing write: the first refused record (lowest index) refuses the request, and nothing is stored or emitted. */
export async function writeRecords(deps: DataDeps, req: monitoringData.WriteRecordsRequest, caller: CallerContext): Promise<monitoringData.WriteRecordsResult> {
  const projectId = requireId('project', req.projectId);
  const cols = req.records;
  const n = cols?.pointId.length ?? 0;
  if (!cols || n === 0) throw new DomainError('422101', { field: 'records', detail: 'records must hold at least one record.', suggestion: 'Send { "records": [ { "point_id", "measured_at", "values" } ] }.' });
  if (n > MAX_RECORDS_PER_WRITE) {
    throw new DomainError('400003', { field: 'records', detail: `A write takes at most ${MAX_RECORDS_PER_WRITE} records; got ${n}.`, suggestion: 'Split the records into several requests, or upload them with POST /v3/projects/{project_id}/data/batches.' });
  }
  const ctx = await deps.contexts.get(caller, projectId, cols.pointId, true);
  checkProjectAcceptsData(ctx);
  const now = deps.clock.now();
  const { ok, failures } = await validateWrite(deps, cols, ctx, now.getTime());
  if (failures.length) throw refuse(failures[0]!);
  await deps.partitions.ensureFor(ok.map((r) => r.ms));
  const stored = await deps.db.transaction((tx) =>
    storeWrite(deps, tx, caller, ctx, ok, {
      now,
      batchId: null,
      onDuplicates: (dups) => {
        const first = dups.reduce((a, b) => (b.index < a.index ? b : a));
        throw refuse({ index: first.index, code: '409003', field: `records[${first.index}].measured_at`, detail: `Point ${first.point.id} already has a record at ${formatMeasuredAt(first.ms, first.offset)}.` });
      },
    }),
  );
  deps.knownPoints.remember(stored.records.map((r) => r.point.id));
  deps.relay.kick();
  return {
    dataId: stored.ids,
    status: stored.records.map((r) => r.status),
    measuredAt: stored.measuredAt,
    totalCount: stored.records.length,
    abnormalCount: stored.abnormalCount,
  };
}
