import { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { BATCH_COLUMNS, toBatch, type BatchRow } from '../batch-row.js';
import { requireId } from '../project-id.js';
import { checkProjectAcceptsData } from '../record-rules.js';

/** The 5 MB body limit allows some 50,000 short records; this bounds a malformed client. */
export const MAX_RECORDS_PER_BATCH = 100_000;

/**
 * Accepts a batch for asynchronous processing: the project-level rules (access, 422301, 422303)
 * are checked now, the records are stored as they came (protobuf columns) and any replica's
 * batch worker takes them up. Per-record rules are applied while processing; refused records
 * are listed with their code and field, the others are stored.
 */
export async function createBatch(deps: DataDeps, req: monitoringData.CreateBatchRequest, caller: CallerContext): Promise<monitoringData.Batch> {
  const projectId = requireId('project', req.projectId);
  const n = req.records?.pointId.length ?? 0;
  if (!req.records || n === 0) throw new DomainError('422101', { field: 'records', detail: 'records must hold at least one record.' });
  if (n > MAX_RECORDS_PER_BATCH) throw new DomainError('400003', { field: 'records', detail: `A batch takes at most ${MAX_RECORDS_PER_BATCH} records; got ${n}.` });
  const ctx = await deps.contexts.get(caller, projectId, [], true);
  checkProjectAcceptsData(ctx);
  const payload = Buffer.from(monitoringData.RecordColumns.encode(req.records).finish());
  const id = newId('batch');
  const { rows } = await deps.db.query<BatchRow>(
    `INSERT INTO batches (id, tenant_id, environment, project_id, total_count, payload, caller, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${BATCH_COLUMNS}`,
    [id, caller.tenantId, caller.environment, projectId, n, payload, JSON.stringify(caller), deps.clock.now().toISOString()],
  );
  deps.wakeBatches();
  return toBatch(rows[0]!);
}
