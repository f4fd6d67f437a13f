import { monitoringData } from '@mp/contracts';
import { IdempotencyKey, type Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { BATCH_COLUMNS, toBatch, type BatchRow } from '../batch-row.js';
import { requireId } from '../project-id.js';
import { checkedRecordCount } from '../columns.js';
import { checkProjectAcceptsData } from '../record-rules.js';

/** The 5 MB body limit allows some 50,000 short records; this bounds a malformed client. */
export const MAX_RECORDS_PER_BATCH = 100_000;

/**
 * Accepts a batch for asynchronous processing: the project-level rules (access, 422301, 422303)
 * are checked now, the records are stored as they came (protobuf columns) and any replica's
 * batch worker takes them up. Per-record rules are applied while processing; refused records
 * are listed with their code and field, the others are stored. With an Idempotency-Key (ADR 0012)
 * a repeat gets the first response (the batch as accepted, `pending`) before any check, and no
 * second batch is stored; the key row commits with the batch row.
 */
export async function createBatch(deps: DataDeps, req: monitoringData.CreateBatchRequest, caller: CallerContext): Promise<monitoringData.Batch> {
  const projectId = requireId('project', req.projectId);
  // Stored as received (the dictionary form is the smaller), once its dictionary is checked.
  const n = req.records ? checkedRecordCount(req.records) : 0;
  if (!req.records || n === 0) throw new DomainError('422101', { field: 'records', detail: 'records must hold at least one record.' });
  if (n > MAX_RECORDS_PER_BATCH)
    throw new DomainError('400003', { field: 'records', detail: `A batch takes at most ${MAX_RECORDS_PER_BATCH} records; got ${n}.` });
  const payload = Buffer.from(monitoringData.RecordColumns.encode(req.records).finish());
  // Hashed as the encoded records (made anyway for storage) behind the project id, in one pass.
  const once = IdempotencyKey.of(caller, 'CreateBatch', () => Buffer.concat([Buffer.from(`${projectId}\n`), payload]), deps.clock.now());
  const replayed = await once?.replay<monitoringData.Batch>(deps.db);
  if (replayed) return replayed;
  const ctx = await deps.contexts.get(caller, projectId, [], true);
  checkProjectAcceptsData(ctx);
  let created = false;
  const insert = async (tx: Queryable): Promise<monitoringData.Batch> => {
    const { rows } = await tx.query<BatchRow>(
      `INSERT INTO batches (id, tenant_id, environment, project_id, total_count, payload, caller, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${BATCH_COLUMNS}`,
      [newId('batch'), caller.tenantId, caller.environment, projectId, n, payload, JSON.stringify(caller), deps.clock.now().toISOString()],
    );
    created = true;
    return toBatch(rows[0]!);
  };
  const batch = await (once ? once.run(deps.db, insert) : insert(deps.db));
  if (created) deps.wakeBatches();
  return batch;
}
