import { PollingWorker } from '../polling-worker.js';
import { retryOnConflict } from '@mp/db';
import { isDomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { RateLimits } from '@mp/ratelimit';
import type { DataDeps } from '../deps.js';
import { storeWrite, validateWrite } from '../ingest.js';
import { checkProjectAcceptsData, type RecordFailure } from '../record-rules.js';
import { delimiterOf } from './profiles.js';
import { fileRows, storedChunks } from './file-rows.js';
import { ReadingBuffer, RowReader, type ImportError, type ImportProfileSnapshot } from './readings.js';

/** docs/imports.md#errors: the errors kept per import (every one is counted). */
export const MAX_STORED_ERRORS = 1000;

/** An upload still receiving after this many hours is abandoned (its gateway went away). */
export const MAX_UPLOAD_HOURS = 6;

interface Claimed {
  id: string;
  project_id: string;
  profile: ImportProfileSnapshot | string;
  chunk_count: number;
  rows_done: number;
  last_ms: number | null;
  error_count: number;
  records_per_minute: number;
  caller: CallerContext | string;
}

export interface ImportWorkerOptions {
  /** The tenant's data-record counters (docs/rules.md#limits), shared with the gateways through Redis when configured. */
  limits: RateLimits;
  pollMs?: number;
  /** A replica holds an import this long without progress before another may take it over. */
  leaseSeconds?: number;
}

/** The field of a refusal → the file column it came from. */
function columnOf(f: RecordFailure, source: { columns: Map<string, string>; timestampColumn: string }): string | null {
  const m = /^records\[\d+\]\.(?:values\.)?(?:channels\.)?([a-z0-9_]+)$/.exec(f.field);
  const name = m?.[1];
  if (name === 'measured_at') return source.timestampColumn;
  if (name && source.columns.has(name)) return source.columns.get(name)!;
  return source.columns.values().next().value ?? null;
}

/**
 * Processes imports (docs/adr/0120-logger-file-imports.md) as the batch worker processes batches:
 * any replica claims one with FOR UPDATE SKIP LOCKED and a lease, reads the stored file through
 * csv-parse, and hands its readings, about a chunk (MP_MONITORING_DATA_BATCH_CHUNK) at a time,
 * to the rules and the store of the JSON write (validateWrite, storeWrite). Each chunk's rows,
 * counts and errors commit in one transaction guarded by the row count it started from, so an
 * import taken over after a crash skips the rows already committed and stores each reading once.
 * Readings are counted against the tenant's data-record limit before they are stored: past it the
 * worker waits for the next window, so a large file goes in at the plan's rate.
 */
export class ImportWorker extends PollingWorker {
  private readonly leaseSeconds: number;
  private lastSweep = 0;

  constructor(
    private readonly deps: DataDeps,
    private readonly opts: ImportWorkerOptions,
  ) {
    super(opts.pollMs ?? 1000, { logger: deps.logger, failure: 'import processing failed; will retry' });
    this.leaseSeconds = opts.leaseSeconds ?? 60;
  }

  protected async step(): Promise<boolean> {
    await this.dropAbandonedUploads();
    const imp = await this.claim();
    if (!imp) return false;
    await this.process(imp);
    return true;
  }

  /**
   * An upload whose gateway went away before it finished (a crash, a lost connection the gateway
   * could not report) never finishes: after MAX_UPLOAD_HOURS it is failed and its bytes dropped.
   * At most once a minute per replica.
   */
  private async dropAbandonedUploads(): Promise<void> {
    const now = Date.now();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const { rows } = await this.deps.db.query<{ id: string }>(
      `UPDATE imports SET status = 'failed', failure_code = '400002', failure_detail = 'The upload did not finish.', completed_at = now()
        WHERE status = 'receiving' AND created_at < now() - make_interval(hours => $1) RETURNING id`,
      [MAX_UPLOAD_HOURS],
    );
    if (rows.length) await this.deps.db.query('DELETE FROM import_chunks WHERE import_id = ANY($1::text[])', [rows.map((r) => r.id)]);
  }

  private async claim(): Promise<Claimed | null> {
    const { rows } = await this.deps.db.query<Claimed>(
      `UPDATE imports SET lease_until = now() + make_interval(secs => $1), started_at = coalesce(started_at, now())
        WHERE id = (SELECT id FROM imports WHERE status = 'processing' AND (lease_until IS NULL OR lease_until < now())
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, project_id, profile, chunk_count, rows_done, last_ms, error_count, records_per_minute, caller`,
      [this.leaseSeconds],
    );
    return rows[0] ?? null;
  }

  private async process(imp: Claimed): Promise<void> {
    const caller: CallerContext = typeof imp.caller === 'string' ? JSON.parse(imp.caller) : imp.caller;
    const profile: ImportProfileSnapshot = typeof imp.profile === 'string' ? JSON.parse(imp.profile) : imp.profile;
    const reader = new RowReader(profile, imp.last_ms);
    const perMinute = imp.records_per_minute;
    // A chunk never holds more readings than a minute of the plan allows, so it can always pass.
    const chunkSize = Math.max(1, perMinute > 0 ? Math.min(this.deps.batchChunk, perMinute) : this.deps.batchChunk);
    const state = { rowsDone: imp.rows_done, errorCount: imp.error_count };
    let dataRows = 0;
    let buffer = new ReadingBuffer();
    let bufferRows = 0;
    // The next chunk is read from the file while the previous one is being stored: at most one
    // chunk is stored at a time, in order, and one more is held.
    let inflight: Promise<boolean> | null = null;
    const settle = async (): Promise<boolean> => {
      const p = inflight;
      inflight = null;
      return p ? await p : true;
    };
    try {
      for await (const row of fileRows(storedChunks(this.deps.db, imp.id, imp.chunk_count), delimiterOf(profile))) {
        if (this.stopped) {
          if (await settle()) await this.release(imp.id);
          return;
        }
        const h = reader.takeHeader(row.cells, row.line);
        if ('error' in h) return await this.fail(imp.id, state.rowsDone, h.error.code, h.error.message, h.error);
        if (h.header) continue;
        dataRows++;
        if (dataRows <= state.rowsDone) continue;
        reader.readRow(row.cells, row.line, buffer);
        bufferRows++;
        if (buffer.size >= chunkSize) {
          if (!(await settle())) return;
          inflight = this.flush(imp, caller, buffer, bufferRows, reader.lastMs, state, perMinute, false);
          // awaited by settle(); a rejection is handled there, not as an unhandled one meanwhile
          inflight.catch(() => undefined);
          buffer = new ReadingBuffer();
          bufferRows = 0;
        }
      }
    } catch (err) {
      const stored = await settle().catch(() => false);
      if (this.stopped) return this.release(imp.id);
      // csv-parse refuses a file it cannot read (an unclosed quote): the rows so far stay stored.
      const message = err instanceof Error ? err.message.slice(0, 300) : String(err);
      if (stored && (/^Invalid|CSV_|Quote|quote/.test(message) || (err as { code?: string }).code?.startsWith('CSV_'))) {
        // The rows read before the fault are whole: they are stored, then the import stops.
        if (buffer.size && !(await this.flush(imp, caller, buffer, bufferRows, reader.lastMs, state, perMinute, false))) return;
        return await this.fail(imp.id, state.rowsDone, '400002', `The file cannot be read as CSV after row ${state.rowsDone}: ${message}`, null);
      }
      throw err;
    }
    if (!(await settle())) return;
    await this.flush(imp, caller, buffer, bufferRows, reader.lastMs, state, perMinute, true);
  }

  /** Takes `n` records of the tenant's per-minute limit, waiting for the next window while it is spent. */
  private async pace(imp: Claimed, caller: CallerContext, n: number, perMinute: number): Promise<boolean> {
    if (perMinute <= 0 || n === 0) return true;
    const key = `${caller.tenantId}:${caller.environment}`;
    for (;;) {
      const verdict = await this.opts.limits.consume('data_records', key, n, perMinute);
      if (verdict.allowed) return true;
      if (this.stopped) return false;
      await this.deps.db.query('UPDATE imports SET lease_until = now() + make_interval(secs => $2) WHERE id = $1', [
        imp.id,
        this.leaseSeconds + verdict.retryAfter,
      ]);
      await this.sleep(Math.max(50, verdict.retryAfter * 1000));
    }
  }

  /** Stores one chunk of readings and the progress through its rows; false when the import stopped. */
  private async flush(
    imp: Claimed,
    caller: CallerContext,
    buffer: ReadingBuffer,
    rows: number,
    lastMs: number | null,
    state: { rowsDone: number; errorCount: number },
    perMinute: number,
    last: boolean,
  ): Promise<boolean> {
    const { deps } = this;
    if (!(await this.pace(imp, caller, buffer.size, perMinute))) {
      await this.release(imp.id);
      return false;
    }
    const cols = buffer.columns();
    let ctx;
    try {
      ctx = await deps.contexts.get(caller, imp.project_id, new Set(buffer.pointId), true);
      checkProjectAcceptsData(ctx);
    } catch (err) {
      if (!isDomainError(err) || err.httpStatus >= 500) throw err;
      await this.fail(imp.id, state.rowsDone, err.code, err.detail, null);
      return false;
    }
    const now = deps.clock.now();
    const checked = buffer.size ? await validateWrite(deps, cols, ctx, now.getTime()) : { ok: [], failures: [] };
    await deps.partitions.ensureFor(checked.ok.map((r) => r.ms));
    const start = state.rowsDone;
    const end = start + rows;
    const result = await retryOnConflict(() =>
      deps.db.transaction(async (tx) => {
        const lock = await tx.query<{ rows_done: number; error_count: number; status: string }>(
          'SELECT rows_done, error_count, status FROM imports WHERE id = $1 FOR UPDATE',
          [imp.id],
        );
        if (lock.rows[0]?.rows_done !== start || lock.rows[0].status !== 'processing') return null;
        let duplicates = 0;
        const stored = checked.ok.length
          ? await storeWrite(deps, tx, caller, ctx, checked.ok, { now, batchId: imp.id, onDuplicates: (d) => (duplicates += d.length) })
          : null;
        const errors: ImportError[] = [...buffer.errors];
        for (const f of checked.failures) {
          const source = buffer.sources[f.index]!;
          errors.push({ row: source.line, column: columnOf(f, source), code: f.code, message: f.detail });
        }
        errors.sort((a, b) => a.row - b.row);
        const errorCount = lock.rows[0].error_count;
        const kept = errors.slice(0, Math.max(0, MAX_STORED_ERRORS - errorCount));
        if (kept.length) {
          await tx.query(
            `INSERT INTO import_errors (import_id, n, row, column_name, code, message)
             SELECT $1, n, r, c, code, m FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[]) AS t(n, r, c, code, m)`,
            [
              imp.id,
              kept.map((_, i) => errorCount + i),
              kept.map((e) => e.row),
              kept.map((e) => e.column),
              kept.map((e) => e.code),
              kept.map((e) => e.message),
            ],
          );
        }
        await tx.query(
          `UPDATE imports SET rows_done = $2, last_ms = $3, stored = stored + $4, duplicates = duplicates + $5, rejected = rejected + $6, error_count = error_count + $7,
                  lease_until = now() + make_interval(secs => $8),
                  status = CASE WHEN $9 THEN 'completed' ELSE status END,
                  completed_at = CASE WHEN $9 THEN $10::timestamptz ELSE NULL END
            WHERE id = $1`,
          [
            imp.id,
            end,
            lastMs,
            stored?.records.length ?? 0,
            duplicates,
            buffer.rejected + checked.failures.length,
            errors.length,
            this.leaseSeconds,
            last,
            now.toISOString(),
          ],
        );
        if (last) await tx.query('DELETE FROM import_chunks WHERE import_id = $1', [imp.id]);
        return { stored, errors: errors.length };
      }),
    );
    if (!result) return false;
    state.rowsDone = end;
    state.errorCount += result.errors;
    if (result.stored) {
      deps.knownPoints.remember(result.stored.records.map((r) => r.point.id));
      deps.relay.kick(result.stored.events);
    }
    return true;
  }

  /** Gives the import back at once (this replica stops): another takes it over without waiting for the lease. */
  private async release(id: string): Promise<void> {
    await this.deps.db.query("UPDATE imports SET lease_until = NULL WHERE id = $1 AND status = 'processing'", [id]);
  }

  /** Ends an import that cannot go on (the file's header, the project no longer takes data): the rows stored stay. */
  private async fail(id: string, rowsDone: number, code: string, detail: string, error: ImportError | null): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE imports SET status = 'failed', failure_code = $3, failure_detail = $4, completed_at = now(), lease_until = NULL
          WHERE id = $1 AND rows_done = $2 AND status = 'processing'`,
        [id, rowsDone, code, detail],
      );
      if (!rowCount) return;
      if (error) {
        await tx.query(
          `INSERT INTO import_errors (import_id, n, row, column_name, code, message) SELECT $1, error_count, $2, $3, $4, $5 FROM imports WHERE id = $1 AND error_count < $6`,
          [id, error.row, error.column, error.code, error.message, MAX_STORED_ERRORS],
        );
        await tx.query('UPDATE imports SET error_count = error_count + 1 WHERE id = $1', [id]);
      }
      await tx.query('DELETE FROM import_chunks WHERE import_id = $1', [id]);
    });
  }
}
