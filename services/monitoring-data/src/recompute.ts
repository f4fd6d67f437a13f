import { PollingWorker } from './polling-worker.js';
import type { monitoringData } from '@mp/contracts';
import type { Database } from '@mp/db';
import { DomainError, isDomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import { triggerStatus } from './channel-rules.js';
import type { DataDeps } from './deps.js';
import type { PointInfo } from './ingest-context.js';
import { completeChannels } from './instrument-channels.js';
import { recomputeRollups } from './rollups.js';

// Recomputation of a point's stored readings after a calibration was added (ADR 0116): a leased
// background job per calibration, in bounded batches, whose progress GET /points/{id}/calibrations
// shows. Any replica may run a job; a job taken over after a crash resumes after the last batch
// that committed.

/** Readings per batch (one transaction each). */
export const RECOMPUTE_BATCH = 500;
/** A replica holds a job this long without progress before another may take it over. */
const LEASE_SECONDS = 60;
/**
 * A job is handed over before the calibration's transaction commits; until the calibration shows
 * in the point's ingest context the job waits. One whose calibration never shows (its
 * transaction rolled back) ends after this long, having changed nothing.
 */
const WAIT_FOR_CALIBRATION_MS = 10 * 60_000;

export interface JobRow {
  calibration_id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  point_id: string;
  valid_from: string | Date;
  caller: CallerContext | string;
  status: string;
  cursor_at: string | Date | null;
  records: number;
  changed: number;
  created_at: string | Date;
  started_at: string | Date | null;
  finished_at: string | Date | null;
}

const iso = (v: string | Date) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString());

/** GetRecomputeStates: the jobs of the named calibrations of a point the caller reads. */
export async function getRecomputeStates(
  deps: Pick<DataDeps, 'db' | 'contexts'>,
  req: monitoringData.RecomputeStatesRequest,
  caller: CallerContext,
): Promise<monitoringData.RecomputeStates> {
  if (!isId('point', req.pointId)) throw new DomainError('400004', { field: 'point_id', detail: 'point_id is not a monitoring point id (pt_…).' });
  if (req.calibrationIds.length > 100) throw new DomainError('400003', { field: 'calibration_ids', detail: 'At most 100 calibrations per call.' });
  await deps.contexts.forPoint(caller, req.pointId);
  const { rows } = await deps.db.query<JobRow>(
    `SELECT calibration_id, status, records, changed, started_at, finished_at FROM recompute_jobs
      WHERE point_id = $1 AND calibration_id = ANY($2::text[]) AND tenant_id = $3 AND environment = $4`,
    [req.pointId, req.calibrationIds, caller.tenantId, caller.environment],
  );
  return {
    items: rows.map((r) => ({
      calibrationId: r.calibration_id,
      // a failed job shows as done: it stopped, and changed what it recorded
      status: r.status === 'failed' ? 'done' : r.status,
      records: r.records,
      changed: r.changed,
      ...(r.started_at ? { startedAt: iso(r.started_at) } : {}),
      ...(r.finished_at ? { finishedAt: iso(r.finished_at) } : {}),
    })),
  };
}

interface StoredReading {
  id: string;
  measured_at: string | Date;
  channels: Record<string, number> | string | null;
  status: string;
}

/**
 * One batch of a job: the next RECOMPUTE_BATCH readings of the point at or after valid_from,
 * each converted again with the calibration valid at its instant and its derived channels
 * computed again, its status set from the trigger levels; the rows that change are updated
 * (version + 1), the rollup buckets they fall in recounted, and the job's progress moved, in one
 * transaction guarded by the progress it started from. Returns whether the job is finished.
 */
export async function recomputeBatch(db: Pick<Database, 'transaction'>, job: JobRow, point: PointInfo, now: Date, limit = RECOMPUTE_BATCH): Promise<boolean> {
  return db.transaction(async (tx) => {
    // The readings are locked as they are read: a correction (PATCH /data/{id}) in between waits,
    // then finds a new version (409004) instead of being overwritten with values read before it.
    const lock = await tx.query<{ cursor_at: string | Date | null; status: string }>(
      'SELECT cursor_at, status FROM recompute_jobs WHERE calibration_id = $1 FOR UPDATE',
      [job.calibration_id],
    );
    const current = lock.rows[0];
    const from = job.cursor_at === null ? null : iso(job.cursor_at);
    if (!current || current.status === 'done' || (current.cursor_at === null ? null : iso(current.cursor_at)) !== from) return true;
    const { rows } = await tx.query<StoredReading>(
      `SELECT id, measured_at, channels, status FROM data_records
        WHERE point_id = $1 AND measured_at >= $2 AND ($3::timestamptz IS NULL OR measured_at > $3)
        ORDER BY measured_at LIMIT $4 FOR UPDATE`,
      [job.point_id, iso(job.valid_from), from, limit],
    );
    const typeChannels = new Set(point.type?.channels.map((c) => c.name) ?? []);
    const changedIds: string[] = [];
    const changedAt: string[] = [];
    const changedChannels: string[] = [];
    const changedStatus: string[] = [];
    const hours = new Set<number>();
    for (const r of rows) {
      const stored = typeof r.channels === 'string' ? (JSON.parse(r.channels) as Record<string, number>) : r.channels;
      if (stored === null) continue;
      const ms = Date.parse(iso(r.measured_at));
      // What the instrument sent (the type's channels); the measured one is converted again when
      // a calibration applies, and derived channels are computed again.
      const channels: Record<string, number> = {};
      for (const [k, v] of Object.entries(stored)) if (typeChannels.has(k)) channels[k] = v;
      completeChannels(point, channels, ms);
      const status = triggerStatus(point.triggerLevels, (c) => channels[c])?.level ?? 'normal';
      if (sameChannels(channels, stored) && status === r.status) continue;
      const text = JSON.stringify(channels);
      changedIds.push(r.id);
      changedAt.push(iso(r.measured_at));
      changedChannels.push(text);
      changedStatus.push(status);
      hours.add(Math.floor(ms / 3_600_000));
    }
    if (changedIds.length) {
      await tx.query(
        `UPDATE data_records d SET channels = u.channels::jsonb, status = u.status, updated_at = $5, version = d.version + 1
           FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[]) AS u(id, measured_at, channels, status)
          WHERE d.id = u.id AND d.measured_at = u.measured_at`,
        [changedIds, changedAt, changedChannels, changedStatus, now.toISOString()],
      );
      for (const h of hours) await recomputeRollups(tx, job.point_id, h * 3_600_000);
    }
    const done = rows.length < limit;
    const last = rows.length ? iso(rows[rows.length - 1]!.measured_at) : from;
    await tx.query(
      `UPDATE recompute_jobs SET cursor_at = $2, records = records + $3, changed = changed + $4, status = $5,
              finished_at = CASE WHEN $5 = 'done' THEN $6::timestamptz ELSE NULL END, lease_until = now() + make_interval(secs => $7)
        WHERE calibration_id = $1`,
      [job.calibration_id, last, rows.length, changedIds.length, done ? 'done' : 'running', now.toISOString(), LEASE_SECONDS],
    );
    return done;
  });
}

/** The same channels and values, in any order (jsonb keeps its keys in an order of its own). */
function sameChannels(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

/** Runs the recompute jobs on this replica: claims one with FOR UPDATE SKIP LOCKED and a lease. */
export class RecomputeWorker extends PollingWorker {
  constructor(
    private readonly deps: Pick<DataDeps, 'db' | 'contexts' | 'clock' | 'logger'>,
    pollMs = 1000,
    private readonly batchSize = RECOMPUTE_BATCH,
  ) {
    super(pollMs, { logger: deps.logger, failure: 'recomputation failed; will retry' });
  }

  protected async step(): Promise<boolean> {
    const job = await this.claim();
    return job ? this.run(job) : false;
  }

  private async claim(): Promise<JobRow | null> {
    const { rows } = await this.deps.db.query<JobRow>(
      `UPDATE recompute_jobs SET lease_until = now() + make_interval(secs => $1)
        WHERE calibration_id = (SELECT calibration_id FROM recompute_jobs WHERE status IN ('pending', 'running') AND (lease_until IS NULL OR lease_until < now())
                                 ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [LEASE_SECONDS],
    );
    return rows[0] ?? null;
  }

  /** Runs a claimed job to its end; false when it has to wait for its calibration to commit. */
  private async run(job: JobRow): Promise<boolean> {
    const { deps } = this;
    const caller: CallerContext = typeof job.caller === 'string' ? JSON.parse(job.caller) : job.caller;
    let point: PointInfo | undefined;
    try {
      point = (await deps.contexts.get(caller, job.project_id, [job.point_id], false)).points.get(job.point_id);
    } catch (err) {
      if (!isDomainError(err) || err.httpStatus >= 500) throw err;
      // The project is gone, or the person who added the calibration lost access to it.
      await this.finish(job, 'failed', `${err.code}: ${err.detail}`);
      return true;
    }
    if (!point) {
      await this.finish(job, 'done', 'the point was deleted');
      return true;
    }
    if (!point.calibrations.some((c) => c.id === job.calibration_id)) {
      if (deps.clock.now().getTime() - Date.parse(iso(job.created_at)) > WAIT_FOR_CALIBRATION_MS) {
        await this.finish(job, 'done', 'the calibration was never stored');
        return true;
      }
      // Not committed yet: look again after a moment (the lease is released shortly).
      await deps.db.query(`UPDATE recompute_jobs SET lease_until = now() + interval '200 milliseconds' WHERE calibration_id = $1`, [job.calibration_id]);
      return false;
    }
    if (job.status === 'pending') {
      await deps.db.query(`UPDATE recompute_jobs SET status = 'running', started_at = coalesce(started_at, $2) WHERE calibration_id = $1`, [
        job.calibration_id,
        deps.clock.now().toISOString(),
      ]);
    }
    let cursor = job;
    while (!this.stopped) {
      const done = await recomputeBatch(deps.db, cursor, point, deps.clock.now(), this.batchSize);
      if (done) break;
      const { rows } = await deps.db.query<JobRow>('SELECT * FROM recompute_jobs WHERE calibration_id = $1', [job.calibration_id]);
      cursor = rows[0]!;
    }
    return true;
  }

  private async finish(job: JobRow, status: 'done' | 'failed', why: string): Promise<void> {
    this.deps.logger.info({ calibrationId: job.calibration_id, status, why }, 'recomputation ended');
    await this.deps.db.query(`UPDATE recompute_jobs SET status = $2, failure = $3, finished_at = now(), lease_until = NULL WHERE calibration_id = $1`, [
      job.calibration_id,
      status,
      why,
    ]);
  }
}
