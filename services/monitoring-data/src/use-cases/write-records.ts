import { monitoringData } from '@mp/contracts';
import { IdempotencyKey, retryOnConflict, type Queryable } from '@mp/db';
import { DomainError, isDomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { expandColumns, inDictionaryForm, writeResult } from '../columns.js';
import { storeWrite, validateWrite, type StoredWrite } from '../ingest.js';
import { DuplicateRecordsError } from '../store-records.js';
import { formatMeasuredAt } from '../measured-at.js';
import { countIngested, countRefused } from '../metrics.js';
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

/**
 * All-or-nothing write: the first refused record (lowest index) refuses the request, and nothing is
 * stored or emitted. With an Idempotency-Key (ADR 0012) a repeat is answered with the first
 * response before any check (its records are stored now, so the checks would judge it otherwise);
 * the key row commits with the records, so a refused write leaves no key behind.
 */
export async function writeRecords(deps: DataDeps, req: monitoringData.WriteRecordsRequest, caller: CallerContext): Promise<monitoringData.WriteRecordsResult> {
  try {
    return await write(deps, req, caller);
  } catch (err) {
    // All or nothing: every record of a refused write is refused, under the code that refused it.
    if (isDomainError(err) && err.httpStatus < 500) countRefused('write', err.code, Math.max(1, req.records ? expandColumns(req.records).pointId.length : 0));
    throw err;
  }
}

async function write(deps: DataDeps, req: monitoringData.WriteRecordsRequest, caller: CallerContext): Promise<monitoringData.WriteRecordsResult> {
  const projectId = requireId('project', req.projectId);
  const dictionary = req.records !== undefined && inDictionaryForm(req.records);
  const cols = req.records && expandColumns(req.records);
  const n = cols?.pointId.length ?? 0;
  if (!cols || n === 0)
    throw new DomainError('422101', {
      field: 'records',
      detail: 'records must hold at least one record.',
      suggestion: 'Send { "records": [ { "point_id", "measured_at", "values" } ] }.',
    });
  if (n > MAX_RECORDS_PER_WRITE) {
    throw new DomainError('400003', {
      field: 'records',
      detail: `A write takes at most ${MAX_RECORDS_PER_WRITE} records; got ${n}.`,
      suggestion: 'Split the records into several requests, or upload them with POST /v3/projects/{project_id}/data/batches.',
    });
  }
  // The request is hashed in its protobuf encoding: one pass over the columns, not key by key.
  const once = IdempotencyKey.of(caller, 'WriteRecords', () => monitoringData.WriteRecordsRequest.encode(req).finish(), deps.clock.now());
  const replayed = await once?.replay<monitoringData.WriteRecordsResult>(deps.db);
  if (replayed) return replayed;
  const ctx = await deps.contexts.get(caller, projectId, cols.pointId, true);
  checkProjectAcceptsData(ctx);
  const now = deps.clock.now();
  const { ok, failures } = await validateWrite(deps, cols, ctx, now.getTime());
  if (failures.length) throw refuse(failures[0]!);
  await deps.partitions.ensureFor(ok.map((r) => r.ms));
  // Set only when this request stored the records (not when a concurrent twin's response is replayed).
  let stored = null as StoredWrite | null;
  const store =
    (savepoint: boolean) =>
    async (tx: Queryable): Promise<monitoringData.WriteRecordsResult> => {
      const write = await storeWrite(deps, tx, caller, ctx, ok, {
        now,
        batchId: null,
        savepoint,
        onDuplicates: (dups) => {
          const first = dups.reduce((a, b) => (b.index < a.index ? b : a));
          throw refuse({
            index: first.index,
            code: '409003',
            field: `records[${first.index}].measured_at`,
            detail: `Point ${first.point.id} already has a record at ${formatMeasuredAt(first.ms, first.offset)}.`,
          });
        },
      });
      stored = write;
      return writeResult(
        { ids: write.ids, statuses: write.records.map((r) => r.status), measuredAt: write.measuredAt, abnormalCount: write.abnormalCount },
        dictionary,
      );
    };
  // A deadlock or serialization failure PostgreSQL broke by rolling this transaction back is
  // retried here, a few times: the client never sees it.
  const attempt = (savepoint: boolean) => retryOnConflict(() => (once ? once.run(deps.db, store(savepoint)) : deps.db.transaction(store(savepoint))));
  // First without the insert's savepoint; a record already stored aborts that transaction, and
  // the write runs again with it, which names the first duplicate (409003) as before.
  const result = await attempt(false).catch((err: unknown) => {
    if (err instanceof DuplicateRecordsError) return attempt(true);
    throw err;
  });
  if (stored) {
    countIngested('write', stored.records.length);
    deps.knownPoints.remember(stored.records.map((r) => r.point.id));
    deps.relay.kick(stored.events);
  }
  return result;
}
