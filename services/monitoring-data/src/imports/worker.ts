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
  /** the committed data-row ranges [start, end), in order */
  done: [number, number][] | string;
  records_per_minute: number;
  caller: CallerContext | string;
}

export interface ImportWorkerOptions {
  /** The tenant's data-record counters (docs/rules.md#limits), shared with the gateways through Redis when configured. */
  limits: RateLimits;
  pollMs?: number;
  /** A replica holds an import this long without progress before another may take it over. */
  leaseSeconds?: number;
  /** Chunks of one import stored at once, each in its own transaction (MP_IMPORT_CONCURRENCY, 4 by default). */
  concurrency?: number;
}

/** A chunk's transaction found its rows committed by another worker, or the import no longer processing: it is rolled back. */
class NotOurs extends Error {}

/** Data rows (0-based) already committed, asked in increasing order. */
class DoneRows {
  private i = 0;
  constructor(private readonly ranges: [number, number][]) {}
  has(row: number): boolean {
    while (this.i < this.ranges.length && this.ranges[this.i]![1] <= row) this.i++;
    const r = this.ranges[this.i];
    return r !== undefined && r[0] <= row;
  }
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
 * to the rules and the store of the JSON write (validateWrite, storeWrite). Several chunks are
 * stored at once, each in its own transaction with its range of data rows, counts and errors, so
 * PostgreSQL stores one chunk while this process reads and checks the next. A chunk commits only
 * when no committed range overlaps its own: an import taken over after a crash skips exactly the
 * rows whose readings are committed, stores each reading once and counts each once.
 * Readings are counted against the tenant's data-record limit before they are stored: past it the
 * worker waits for the next window, so a large file goes in at the plan's rate.
 */
export class ImportWorker extends PollingWorker {
  private readonly leaseSeconds: number;
  private readonly concurrency: number;
  private limits: RateLimits;
  private lastSweep = 0;

  constructor(
    private readonly deps: DataDeps,
    private readonly opts: ImportWorkerOptions,
  ) {
    super(opts.pollMs ?? 1000, { logger: deps.logger, failure: 'import processing failed; will retry' });
    this.leaseSeconds = opts.leaseSeconds ?? 60;
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
    this.limits = opts.limits;
  }

  /**
   * Counts readings in `limits` from now on: the one-process platform without Redis hands over its
   * gateway's counters, so a tenant's JSON writes and imports share one data-record limit there as
   * they share Redis elsewhere (docs/imports.md#limits). The counters given at construction stay
   * the caller's to close.
   */
  shareLimits(limits: RateLimits): void {
    this.limits = limits;
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
        RETURNING id, project_id, profile, chunk_count, records_per_minute, caller,
                  (SELECT coalesce(jsonb_agg(jsonb_build_array(lower(r), upper(r)) ORDER BY lower(r)), '[]'::jsonb) FROM unnest(done_rows) AS r) AS done`,
      [this.leaseSeconds],
    );
    return rows[0] ?? null;
  }

  private async process(imp: Claimed): Promise<void> {
    const caller: CallerContext = typeof imp.caller === 'string' ? JSON.parse(imp.caller) : imp.caller;
    const profile: ImportProfileSnapshot = typeof imp.profile === 'string' ? JSON.parse(imp.profile) : imp.profile;
    const done = new DoneRows(typeof imp.done === 'string' ? JSON.parse(imp.done) : imp.done);
    const reader = new RowReader(profile, null);
    const perMinute = imp.records_per_minute;
    // A chunk never holds more readings than a minute of the plan allows, so it can always pass.
    const chunkSize = Math.max(1, perMinute > 0 ? Math.min(this.deps.batchChunk, perMinute) : this.deps.batchChunk);
    // Chunks being stored: the next ones are read and checked meanwhile. One that fails or finds
    // the import no longer ours halts the rest (they finish or roll back; none is started after).
    const inflight = new Set<Promise<void>>();
    let halted = false;
    let failure: unknown = null;
    const settleAll = async (): Promise<boolean> => {
      await Promise.all(inflight);
      if (failure) throw failure;
      return !halted;
    };
    /** Starts storing data rows [start, end) once the limit allows; false when this import halted or this replica stops. */
    const launch = async (chunk: ReadingBuffer, start: number, end: number): Promise<boolean> => {
      if (end === start) return true;
      while (inflight.size >= this.concurrency && !halted) await Promise.race(inflight);
      // checked per chunk, not per run of rows (a stored piece of the file holds some 36,000): a stop is seen within a chunk
      if (halted || this.stopped || !(await this.pace(imp, caller, chunk.size, perMinute))) return false;
      const p: Promise<void> = this.store(imp, caller, chunk, start, end).then(
        (ok) => {
          if (!ok) halted = true;
        },
        (err: unknown) => {
          failure ??= err;
          halted = true;
        },
      );
      inflight.add(p);
      void p.then(() => inflight.delete(p));
      return true;
    };
    let dataRows = 0;
    let chunk = new ReadingBuffer();
    let chunkStart = 0;
    const stop = async (): Promise<void> => {
      if ((await settleAll()) && this.stopped) await this.release(imp.id);
    };
    try {
      for await (const run of fileRows(storedChunks(this.deps.db, imp.id, imp.chunk_count), delimiterOf(profile))) {
        if (this.stopped || halted) return await stop();
        for (const row of run) {
          const h = reader.takeHeader(row.cells, row.line);
          if ('error' in h) {
            await settleAll();
            return await this.fail(imp.id, h.error.code, h.error.message, h.error);
          }
          if (h.header) continue;
          const at = dataRows++;
          if (done.has(at)) {
            // committed by an earlier worker: a chunk is a run of rows, so the one being read ends here
            if (!(await launch(chunk, chunkStart, at))) return await stop();
            chunk = new ReadingBuffer();
            chunkStart = at + 1;
            reader.skipRow(row.cells);
            continue;
          }
          reader.readRow(row.cells, row.line, chunk);
          // errors bound a chunk too: a file of bad rows is not held whole as errors
          if (chunk.size >= chunkSize || chunk.errors.length >= chunkSize) {
            if (!(await launch(chunk, chunkStart, dataRows))) return await stop();
            chunk = new ReadingBuffer();
            chunkStart = dataRows;
          }
        }
      }
    } catch (err) {
      const stored = await settleAll().catch(() => false);
      if (this.stopped) return this.release(imp.id);
      // csv-parse refuses a file it cannot read (an unclosed quote): the rows so far stay stored.
      const message = err instanceof Error ? err.message.slice(0, 300) : String(err);
      if (stored && (/^Invalid|CSV_|Quote|quote/.test(message) || (err as { code?: string }).code?.startsWith('CSV_'))) {
        // The rows read before the fault are whole: they are stored, then the import stops.
        if (!(await launch(chunk, chunkStart, dataRows)) || !(await settleAll())) return;
        return await this.fail(imp.id, '400002', `The file cannot be read as CSV after row ${dataRows}: ${message}`, null);
      }
      throw err;
    }
    if (!(await launch(chunk, chunkStart, dataRows)) || !(await settleAll())) return await stop();
    await this.complete(imp.id, dataRows);
  }

  /** Takes `n` records of the tenant's per-minute limit, waiting for the next window while it is spent. */
  private async pace(imp: Claimed, caller: CallerContext, n: number, perMinute: number): Promise<boolean> {
    if (perMinute <= 0 || n === 0) return true;
    const key = `${caller.tenantId}:${caller.environment}`;
    for (;;) {
      const verdict = await this.limits.consume('data_records', key, n, perMinute);
      if (verdict.allowed) return true;
      if (this.stopped) return false;
      await this.deps.db.query('UPDATE imports SET lease_until = now() + make_interval(secs => $2) WHERE id = $1', [
        imp.id,
        this.leaseSeconds + verdict.retryAfter,
      ]);
      await this.sleep(Math.max(50, verdict.retryAfter * 1000));
    }
  }

  /**
   * Stores one chunk of readings, data rows [start, end), with its counts and errors; false when
   * it cannot (the project no longer takes data: the import failed; the rows are another worker's).
   */
  private async store(imp: Claimed, caller: CallerContext, buffer: ReadingBuffer, start: number, end: number): Promise<boolean> {
    const { deps } = this;
    const cols = buffer.columns();
    let ctx;
    try {
      ctx = await deps.contexts.get(caller, imp.project_id, new Set(buffer.pointId), true);
      checkProjectAcceptsData(ctx);
    } catch (err) {
      if (!isDomainError(err) || err.httpStatus >= 500) throw err;
      await this.fail(imp.id, err.code, err.detail, null);
      return false;
    }
    const now = deps.clock.now();
    const checked = buffer.size ? await validateWrite(deps, cols, ctx, now.getTime()) : { ok: [], failures: [] };
    await deps.partitions.ensureFor(checked.ok.map((r) => r.ms));
    const errors: ImportError[] = [...buffer.errors];
    for (const f of checked.failures) {
      const source = buffer.sources[f.index]!;
      errors.push({ row: buffer.lines[f.index]!, column: columnOf(f, source), code: f.code, message: f.detail });
    }
    errors.sort((a, b) => a.row - b.row);
    const result = await retryOnConflict(() =>
      deps.db.transaction(async (tx) => {
        let duplicates = 0;
        const stored = checked.ok.length
          ? await storeWrite(deps, tx, caller, ctx, checked.ok, { now, batchId: imp.id, onDuplicates: (d) => (duplicates += d.length) })
          : null;
        // Last, so the import's row is locked only from here to the commit: the chunks' inserts
        // run side by side and their progress updates one after another. The guard is what keeps
        // the counts exact: rows another worker committed are never committed (nor counted) twice.
        const progress = await tx.query<{ error_count: number }>(
          `UPDATE imports SET done_rows = done_rows + int4multirange(int4range($2, $3)), rows_done = rows_done + ($3 - $2),
                  stored = stored + $4, duplicates = duplicates + $5, rejected = rejected + $6, error_count = error_count + $7,
                  lease_until = now() + make_interval(secs => $8)
            WHERE id = $1 AND status = 'processing' AND NOT done_rows && int4range($2, $3)
            RETURNING error_count - $7 AS error_count`,
          [imp.id, start, end, stored?.records.length ?? 0, duplicates, buffer.rejected + checked.failures.length, errors.length, this.leaseSeconds],
        );
        if (!progress.rows[0]) throw new NotOurs();
        const before = progress.rows[0].error_count;
        const kept = errors.slice(0, Math.max(0, MAX_STORED_ERRORS - before));
        if (kept.length) {
          await tx.query(
            `INSERT INTO import_errors (import_id, n, row, column_name, code, message)
             SELECT $1, n, r, c, code, m FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[]) AS t(n, r, c, code, m)`,
            [imp.id, kept.map((_, i) => before + i), kept.map((e) => e.row), kept.map((e) => e.column), kept.map((e) => e.code), kept.map((e) => e.message)],
          );
        }
        return stored;
      }),
    ).catch((err: unknown) => {
      if (err instanceof NotOurs) return false as const;
      throw err;
    });
    if (result === false) return false;
    if (result) {
      deps.knownPoints.remember(result.records.map((r) => r.point.id));
      deps.relay.kick(result.events);
    }
    return true;
  }

  /** Every data row is committed: the import is completed and its file dropped. */
  private async complete(id: string, dataRows: number): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE imports SET status = 'completed', completed_at = $2::timestamptz, lease_until = NULL
          WHERE id = $1 AND status = 'processing' AND done_rows = int4multirange(int4range(0, $3))`,
        [id, now.toISOString(), dataRows],
      );
      if (rowCount) await tx.query('DELETE FROM import_chunks WHERE import_id = $1', [id]);
    });
  }

  /** Gives the import back at once (this replica stops): another takes it over without waiting for the lease. */
  private async release(id: string): Promise<void> {
    await this.deps.db.query("UPDATE imports SET lease_until = NULL WHERE id = $1 AND status = 'processing'", [id]);
  }

  /** Ends an import that cannot go on (the file's header, the project no longer takes data): the rows stored stay. */
  private async fail(id: string, code: string, detail: string, error: ImportError | null): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE imports SET status = 'failed', failure_code = $2, failure_detail = $3, completed_at = now(), lease_until = NULL
          WHERE id = $1 AND status = 'processing'`,
        [id, code, detail],
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
