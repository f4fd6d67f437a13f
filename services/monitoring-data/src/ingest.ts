import type { monitoringData } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { appendEvent, type HandedEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from './deps.js';
import { dataAbnormal, dataCreatedBytes, formatAll, type EventRecord } from './events.js';
import { newDataIds } from './ids.js';
import type { ProjectContext } from './ingest-context.js';
import { loadPrevious } from './previous.js';
import { checkAbruptChanges, checkRecords, type CheckedRecord, type RecordFailure } from './record-rules.js';
import { addToRollups } from './rollups.js';
import { insertRecords, type Scope } from './store-records.js';
import { applyAlarmRules } from './alarms/write-rules.js';

/** Every rule that can be decided before the insert, for the records of one write. */
export async function validateWrite(
  deps: Pick<DataDeps, 'db'>,
  cols: monitoringData.RecordColumns,
  ctx: ProjectContext,
  nowMs: number,
): Promise<{ ok: CheckedRecord[]; failures: RecordFailure[] }> {
  const first = checkRecords(cols, ctx, nowMs);
  const stored = await loadPrevious(deps.db, first.ok);
  const second = checkAbruptChanges(first.ok, stored);
  return { ok: second.ok, failures: [...first.failures, ...second.failures].sort((a, b) => a.index - b.index) };
}

export interface StoredWrite {
  /** The records stored; `ids[i]` and `measuredAt[i]` (as returned and emitted) belong to `records[i]`. */
  records: CheckedRecord[];
  ids: string[];
  measuredAt: string[];
  /** Records the unique constraint turned away (already stored at that instant). */
  duplicates: CheckedRecord[];
  abnormalCount: number;
  /** The events written, with their data, to hand to the relay once the transaction committed. */
  events: HandedEvent[];
}

/**
 * Inserts the checked records and writes data.created (and data.abnormal when any record is over
 * a threshold) to the outbox in the caller's transaction: the rows and their events commit
 * together or not at all. `onDuplicates` decides what a duplicate does: a synchronous write
 * throws (rolling everything back), a batch reports it and keeps the rest.
 */
export async function storeWrite(
  deps: Pick<DataDeps, 'knownPoints' | 'alarms'>,
  tx: Queryable,
  caller: CallerContext,
  ctx: ProjectContext,
  records: CheckedRecord[],
  opts: {
    now: Date;
    batchId: string | null;
    onDuplicates: (dups: CheckedRecord[]) => void;
    /** false: a duplicate throws DuplicateRecordsError instead (insertRecords) */
    savepoint?: boolean;
  },
): Promise<StoredWrite> {
  const scope: Scope = { tenantId: caller.tenantId, environment: caller.environment, projectId: ctx.project.id };
  const nowIso = opts.now.toISOString();
  const ids = newDataIds(records.length, opts.now.getTime());
  const conflictAt = await insertRecords(tx, scope, records, ids, { batchId: opts.batchId, now: nowIso, savepoint: opts.savepoint ?? true });
  let kept = records;
  let keptIds = ids;
  const duplicates = conflictAt.map((i) => records[i]!);
  if (duplicates.length) {
    opts.onDuplicates(duplicates);
    const skip = new Set(conflictAt);
    kept = records.filter((_, i) => !skip.has(i));
    keptIds = ids.filter((_, i) => !skip.has(i));
  }
  const measuredAt = formatAll(kept);
  if (kept.length === 0) return { records: kept, ids: keptIds, measuredAt, duplicates, abnormalCount: 0, events: [] };
  await deps.knownPoints.register(tx, scope, deps.knownPoints.unknown(new Set(kept.map((r) => r.point.id))));
  const base = {
    tenantId: caller.tenantId,
    environment: caller.environment,
    occurredAt: nowIso,
    ...(caller.traceparent ? { traceparent: caller.traceparent } : {}),
  };
  const created = dataCreatedBytes(ctx.project, kept, keptIds, measuredAt);
  // Written once as bytes: the outbox stores them as its text, and the relay publishes them.
  const createdBytes = created.bytes;
  const events: HandedEvent[] = [
    { eventId: (await appendEvent(tx, { ...base, type: 'data.created', dataJson: createdBytes })).event_id, dataJson: createdBytes },
  ];
  if (created.abnormalCount > 0) {
    const abnormal: EventRecord[] = [];
    for (let i = 0; i < kept.length; i++) if (kept[i]!.status !== 'normal') abnormal.push({ ...kept[i]!, id: keptIds[i]!, qualityFlag: 'valid' });
    const abnormalJson = JSON.stringify(dataAbnormal(ctx.project, abnormal));
    events.push({ eventId: (await appendEvent(tx, { ...base, type: 'data.abnormal', dataJson: abnormalJson })).event_id, dataJson: abnormalJson });
  }
  await addToRollups(tx, kept);
  events.push(...(await applyAlarmRules(tx, deps.alarms, caller, ctx, kept, keptIds, opts.now)));
  return { records: kept, ids: keptIds, measuredAt, duplicates, abnormalCount: created.abnormalCount, events };
}
