import { PollingWorker } from './polling-worker.js';
import { monitoringData } from '@mp/contracts';
import { retryOnConflict } from '@mp/db';
import { isDomainError } from '@mp/errors';
import { appendEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from './deps.js';
import { expandColumns } from './columns.js';
import { storeWrite, validateWrite } from './ingest.js';
import { countFailures, countIngested } from './metrics.js';
import { formatMeasuredAt } from './measured-at.js';
import { checkProjectAcceptsData, type RecordFailure } from './record-rules.js';

/** A replica holds a batch this long without progress before another may take it over. */
const LEASE_SECONDS = 60;

interface Claimed {
  id: string;
  project_id: string;
  total_count: number;
  processed_count: number;
  created_at: string;
  payload: Buffer | Uint8Array;
  caller: CallerContext | string;
}

function slice(cols: monitoringData.RecordColumns, start: number, end: number): monitoringData.RecordColumns {
  const out = {} as Record<string, unknown[]>;
  for (const [k, v] of Object.entries(cols) as [string, unknown[]][]) out[k] = v.length === 0 ? [] : v.slice(start, end);
  return out as unknown as monitoringData.RecordColumns;
}

/** Chunk-relative failure → batch-relative (index and the `records[i]` of its field). */
const shift = (f: RecordFailure, by: number): RecordFailure => ({
  ...f,
  index: f.index + by,
  field: f.field.replace(/^records\[(\d+)\]/, (_, i: string) => `records[${Number(i) + by}]`),
});

/**
 * Processes stored batches. Any replica may run one: a batch is claimed with FOR UPDATE SKIP
 * LOCKED and a lease, and processed in chunks; each chunk's rows, refused-record list, progress
 * and events commit in one transaction guarded by the progress it started from, so a batch taken
 * over after a crash resumes at the first unfinished chunk and no chunk is stored twice.
 */
export class BatchWorker extends PollingWorker {
  constructor(
    private readonly deps: DataDeps,
    pollMs = 1000,
  ) {
    super(pollMs, { logger: deps.logger, failure: 'batch processing failed; will retry' });
  }

  protected async step(): Promise<boolean> {
    const batch = await this.claim();
    if (!batch) return false;
    await this.process(batch);
    return true;
  }

  private async claim(): Promise<Claimed | null> {
    const { rows } = await this.deps.db.query<Claimed>(
      `UPDATE batches SET status = 'processing', lease_until = now() + make_interval(secs => $1), started_at = coalesce(started_at, now())
        WHERE id = (SELECT id FROM batches WHERE status IN ('pending', 'processing') AND (lease_until IS NULL OR lease_until < now())
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, project_id, total_count, processed_count, created_at, payload, caller`,
      [LEASE_SECONDS],
    );
    return rows[0] ?? null;
  }

  private async process(batch: Claimed): Promise<void> {
    const { deps } = this;
    const caller: CallerContext = typeof batch.caller === 'string' ? JSON.parse(batch.caller) : batch.caller;
    const cols = expandColumns(monitoringData.RecordColumns.decode(batch.payload instanceof Uint8Array ? batch.payload : Buffer.from(batch.payload)));
    for (let start = batch.processed_count; start < batch.total_count && !this.stopped; start += deps.batchChunk) {
      const end = Math.min(start + deps.batchChunk, batch.total_count);
      const chunk = slice(cols, start, end);
      let ctx;
      try {
        ctx = await deps.contexts.get(caller, batch.project_id, chunk.pointId, true);
        checkProjectAcceptsData(ctx);
      } catch (err) {
        if (!isDomainError(err) || err.httpStatus >= 500) throw err;
        await this.fail(batch, caller, start, err.code, err.detail);
        return;
      }
      const now = deps.clock.now();
      const checked = await validateWrite(deps, chunk, ctx, now.getTime());
      const failures = checked.failures.map((f) => shift(f, start));
      await deps.partitions.ensureFor(checked.ok.map((r) => r.ms));
      // Run again from the start when PostgreSQL broke a deadlock or serialization failure by
      // rolling it back; the duplicates a failed run added to `failures` are dropped first.
      const checkedFailures = failures.length;
      const done = await retryOnConflict(() =>
        deps.db.transaction(async (tx) => {
          failures.length = checkedFailures;
          // Guarded by the progress this chunk started from: a second worker on the same batch
          // (lease expired meanwhile) finds other progress under the row lock and stores nothing.
          const last = end === batch.total_count;
          const lock = await tx.query<{ processed_count: number }>('SELECT processed_count FROM batches WHERE id = $1 FOR UPDATE', [batch.id]);
          if (lock.rows[0]?.processed_count !== start) return null;
          const stored = await storeWrite(deps, tx, caller, ctx, checked.ok, {
            now,
            batchId: batch.id,
            onDuplicates: (dups) => {
              for (const d of dups)
                failures.push({
                  index: d.index + start,
                  code: '409003',
                  field: `records[${d.index + start}].measured_at`,
                  detail: `Point ${d.point.id} already has a record at ${formatMeasuredAt(d.ms, d.offset)}.`,
                });
            },
          });
          const { rows } = await tx.query<{ accepted_count: number; rejected_count: number; abnormal_count: number; completed_at: string | null }>(
            `UPDATE batches SET processed_count = $3, accepted_count = accepted_count + $4, rejected_count = rejected_count + $5, abnormal_count = abnormal_count + $6,
                  lease_until = now() + make_interval(secs => $7),
                  status = CASE WHEN $8 THEN 'completed' ELSE status END,
                  completed_at = CASE WHEN $8 THEN $9::timestamptz ELSE NULL END,
                  payload = CASE WHEN $8 THEN NULL ELSE payload END
            WHERE id = $1 AND processed_count = $2
            RETURNING accepted_count, rejected_count, abnormal_count, completed_at`,
            [batch.id, start, end, stored.records.length, failures.length, stored.abnormalCount, LEASE_SECONDS, last, now.toISOString()],
          );
          if (failures.length) {
            await tx.query(
              `INSERT INTO batch_errors (batch_id, idx, code, field, detail) SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[])`,
              [batch.id, failures.map((f) => f.index), failures.map((f) => f.code), failures.map((f) => f.field), failures.map((f) => f.detail)],
            );
          }
          if (last) await this.completedEvent(tx, batch, caller, ctx.project.name, 'completed', rows[0]!, now.toISOString());
          return stored;
        }),
      );
      if (!done) return;
      countIngested('batch', done.records.length);
      countFailures('batch', failures);
      deps.knownPoints.remember(checked.ok.map((r) => r.point.id));
      deps.relay.kick(done.events);
    }
  }

  /** Stops a batch whose project no longer takes data (or the sender lost access): the rest is refused with that code. */
  private async fail(batch: Claimed, caller: CallerContext, start: number, code: string, detail: string): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    await this.deps.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ accepted_count: number; rejected_count: number; abnormal_count: number; completed_at: string | null }>(
        `UPDATE batches SET status = 'failed', processed_count = total_count, rejected_count = rejected_count + (total_count - $2),
                failure_code = $3, failure_detail = $4, completed_at = $5, payload = NULL, lease_until = NULL
          WHERE id = $1 AND processed_count = $2 RETURNING accepted_count, rejected_count, abnormal_count, completed_at`,
        [batch.id, start, code, detail, now],
      );
      if (rows[0]) await this.completedEvent(tx, batch, caller, null, 'failed', rows[0], now);
    });
    this.deps.relay.kick();
  }

  private async completedEvent(
    tx: Parameters<typeof appendEvent>[0],
    batch: Claimed,
    caller: CallerContext,
    projectName: string | null,
    status: 'completed' | 'failed',
    counts: { accepted_count: number; rejected_count: number; abnormal_count: number; completed_at: string | null },
    now: string,
  ): Promise<void> {
    await appendEvent(tx, {
      type: 'data.batch_completed',
      tenantId: caller.tenantId,
      environment: caller.environment,
      occurredAt: now,
      ...(caller.traceparent ? { traceparent: caller.traceparent } : {}),
      data: {
        batch_id: batch.id,
        project_id: batch.project_id,
        ...(projectName !== null ? { project_name: projectName } : {}),
        status,
        total_count: batch.total_count,
        accepted_count: counts.accepted_count,
        rejected_count: counts.rejected_count,
        abnormal_count: counts.abnormal_count,
        created_at: batch.created_at,
        completed_at: counts.completed_at ?? now,
      },
    });
  }
}
