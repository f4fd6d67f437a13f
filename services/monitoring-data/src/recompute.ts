import { PollingWorker } from './polling-worker.js';
import type { Database, Queryable } from '@mp/db';
import { isDomainError } from '@mp/errors';
import { appendEvents, type HandedEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import { lockPoints } from './alarms/alarm-store.js';
import type { Reading } from './alarms/reading.js';
import { replayAlarms } from './alarms/recompute-alarms.js';
import type { AlarmSettings } from './alarms/settings.js';
import { triggerStatus } from './channel-rules.js';
import type { DataDeps } from './deps.js';
import { createdRecord, dataAbnormal } from './events.js';
import type { PointInfo, ProjectInfo } from './ingest-context.js';
import { completeChannels } from './instrument-channels.js';
import type { CheckedRecord } from './record-rules.js';
import { recomputeRollups } from './rollups.js';

// Recomputation of a point's stored readings after a calibration was added, or its derived
// channels changed (ADR 0116, 0117): a leased background job, in bounded batches, whose progress
// GET /points/{id}/calibrations and GET /points/{id}/recomputations show (recompute-states.ts).
// Any replica may run a job; a job taken over after a crash resumes after the last batch that
// committed.

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
  /** the calibration's id (cause `calibration`), or `{point}@{ingest version}` (cause `derived_channels`) */
  id: string;
  cause: 'calibration' | 'derived_channels';
  /** the project's ingest version the point's new settings came with (derived_channels); null for a calibration */
  min_version: string | number | null;
  pending_alarm: string | null;
  created_by: string;
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

export const iso = (v: string | Date) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString());

interface StoredReading {
  id: string;
  measured_at: string | Date;
  utc_offset: number;
  channels: Record<string, number> | string | null;
  status: string;
  quality_flag: string;
  created_at: string | Date;
}

/** What a batch works with: the point's settings now, its project, and how alarms are raised. */
export interface BatchContext {
  db: Pick<Database, 'transaction'>;
  alarms: AlarmSettings;
  project: ProjectInfo;
  point: PointInfo;
}

/**
 * One batch of a job: the next RECOMPUTE_BATCH readings of the point at or after valid_from,
 * each converted again with the calibration valid at its instant and its derived channels
 * computed again, its status set from the trigger levels; the rows that change are updated
 * (version + 1), the rollup buckets they fall in recounted, data.updated (and data.abnormal for
 * readings the recomputation newly puts over a level) written, the point's alarm brought in line
 * with the recomputed readings (alarms/recompute-alarms.ts) and the job's progress moved, in one
 * transaction guarded by the progress it started from. Returns whether the job is finished.
 */
export async function recomputeBatch(c: BatchContext, job: JobRow, now: Date, limit = RECOMPUTE_BATCH): Promise<boolean> {
  const { point, project } = c;
  return c.db.transaction(async (tx) => {
    const lock = await tx.query<{ cursor_at: string | Date | null; status: string; pending_alarm: string | null; opening_alarm: string | null }>(
      'SELECT cursor_at, status, pending_alarm, opening_alarm FROM recompute_jobs WHERE id = $1 FOR UPDATE',
      [job.id],
    );
    const current = lock.rows[0];
    const from = job.cursor_at === null ? null : iso(job.cursor_at);
    if (!current || current.status === 'done' || (current.cursor_at === null ? null : iso(current.cursor_at)) !== from) return true;
    // The point's alarm lock before its readings (ADR 0074): a write takes it after inserting
    // its new rows, which no batch waits for, so the two queue on the lock and never in a cycle.
    await lockPoints(tx, [job.point_id]);
    // The readings are locked as they are read: a correction (PATCH /data/{id}) in between waits,
    // then finds a new version (409004) instead of being overwritten with values read before it.
    const { rows } = await tx.query<StoredReading>(
      `SELECT id, measured_at, utc_offset, channels, status, quality_flag, created_at FROM data_records
        WHERE point_id = $1 AND measured_at >= $2 AND ($3::timestamptz IS NULL OR measured_at > $3)
        ORDER BY measured_at LIMIT $4 FOR UPDATE`,
      [job.point_id, iso(job.valid_from), from, limit],
    );
    const typeChannels = new Set(point.type?.channels.map((ch) => ch.name) ?? []);
    const changed: { row: StoredReading; record: CheckedRecord; text: string }[] = [];
    const replay: Reading[] = [];
    const hours = new Set<number>();
    // Readings stored after the job was handed over (just before the change committed) were
    // written with the new settings and went through the alarm rules then: the replay leaves them
    // out, or they would count twice. (A write in flight across the commit, which read the old
    // settings, is left out too: its alarm effect stays that of its old values, ADR 0116.)
    const handedMs = Date.parse(iso(job.created_at));
    for (const r of rows) {
      const stored = typeof r.channels === 'string' ? (JSON.parse(r.channels) as Record<string, number>) : r.channels;
      if (stored === null) continue;
      const ms = Date.parse(iso(r.measured_at));
      // What the instrument sent (the type's channels); the measured one is converted again when
      // a calibration applies, and derived channels are computed again.
      const channels: Record<string, number> = {};
      for (const [k, v] of Object.entries(stored)) if (typeChannels.has(k)) channels[k] = v;
      completeChannels(point, channels, ms);
      const crossed = triggerStatus(point.triggerLevels, (ch) => channels[ch]);
      const record: CheckedRecord = {
        index: 0,
        point,
        ms,
        offset: r.utc_offset,
        x: null,
        y: null,
        z: null,
        dx: null,
        dy: null,
        dz: null,
        channels,
        status: crossed?.level ?? 'normal',
        channel: crossed?.channel ?? null,
      };
      if (r.quality_flag !== 'invalid' && Date.parse(iso(r.created_at)) < handedMs) replay.push({ record, id: r.id });
      if (sameChannels(channels, stored) && record.status === r.status) continue;
      changed.push({ row: r, record, text: JSON.stringify(channels) });
      hours.add(Math.floor(ms / 3_600_000));
    }
    const events: HandedEvent[] = [];
    if (changed.length) {
      await tx.query(
        `UPDATE data_records d SET channels = u.channels::jsonb, status = u.status, updated_at = $5, version = d.version + 1
           FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[]) AS u(id, measured_at, channels, status)
          WHERE d.id = u.id AND d.measured_at = u.measured_at`,
        [
          changed.map((x) => x.row.id),
          changed.map((x) => iso(x.row.measured_at)),
          changed.map((x) => x.text),
          changed.map((x) => x.record.status),
          now.toISOString(),
        ],
      );
      for (const h of hours) await recomputeRollups(tx, job.point_id, h * 3_600_000);
      events.push(...(await recomputedEvents(tx, job, project, changed, now)));
    }
    const done = rows.length < limit;
    const caller = callerOf(job);
    const alarms = await replayAlarms(
      tx,
      c.alarms,
      caller,
      project,
      point,
      replay,
      {
        from: new Date(iso(job.valid_from)),
        first: from === null,
        last: done,
        pending: current.pending_alarm,
        opening: current.opening_alarm,
        handedAt: new Date(handedMs),
      },
      now,
    );
    events.push(...alarms.events);
    const last = rows.length ? iso(rows[rows.length - 1]!.measured_at) : from;
    await tx.query(
      `UPDATE recompute_jobs SET cursor_at = $2, records = records + $3, changed = changed + $4, status = $5,
              finished_at = CASE WHEN $5 = 'done' THEN $6::timestamptz ELSE NULL END, lease_until = now() + make_interval(secs => $7), pending_alarm = $8,
              opening_alarm = $9
        WHERE id = $1`,
      [job.id, last, rows.length, changed.length, done ? 'done' : 'running', now.toISOString(), LEASE_SECONDS, alarms.pending, alarms.opening],
    );
    return done;
  });
}

/**
 * The events of the records a batch changed: one data.updated with them (as they are now;
 * changed_fields `values`, and `status` when a status changed), and data.abnormal with those the
 * recomputation put over a level they were not over before, as a write of them would have sent.
 */
async function recomputedEvents(
  tx: Queryable,
  job: JobRow,
  project: ProjectInfo,
  changed: { row: StoredReading; record: CheckedRecord }[],
  now: Date,
): Promise<HandedEvent[]> {
  const caller = callerOf(job);
  const base = { tenantId: caller.tenantId, environment: caller.environment, occurredAt: now.toISOString() };
  const records = changed.map((x) => ({ ...x.record, id: x.row.id, qualityFlag: x.row.quality_flag }));
  const updated = JSON.stringify({
    project_id: project.id,
    project_name: project.name,
    change: 'updated',
    changed_fields: changed.some((x) => x.record.status !== x.row.status) ? ['values', 'status'] : ['values'],
    records: records.map(createdRecord),
  });
  const out: { type: 'data.updated' | 'data.abnormal'; dataJson: string }[] = [{ type: 'data.updated', dataJson: updated }];
  const abnormal = dataAbnormal(
    project,
    records.filter((r, i) => r.status !== 'normal' && r.status !== changed[i]!.row.status),
  );
  if (abnormal) out.push({ type: 'data.abnormal', dataJson: JSON.stringify(abnormal) });
  const metas = await appendEvents(
    tx,
    out.map((e) => ({ ...base, ...e })),
  );
  return metas.map((m, i) => ({ eventId: m.event_id, dataJson: out[i]!.dataJson }));
}

const callerOf = (job: JobRow): CallerContext => (typeof job.caller === 'string' ? JSON.parse(job.caller) : job.caller);

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
    private readonly deps: Pick<DataDeps, 'db' | 'contexts' | 'clock' | 'logger' | 'relay' | 'alarms'>,
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
        WHERE id = (SELECT id FROM recompute_jobs WHERE status IN ('pending', 'running') AND (lease_until IS NULL OR lease_until < now())
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [LEASE_SECONDS],
    );
    return rows[0] ?? null;
  }

  /** Runs a claimed job to its end; false when it has to wait for the change that caused it to commit. */
  private async run(job: JobRow): Promise<boolean> {
    const { deps } = this;
    const caller = callerOf(job);
    let point: PointInfo | undefined;
    let ctx;
    try {
      ctx = await deps.contexts.get(caller, job.project_id, [job.point_id], false);
      point = ctx.points.get(job.point_id);
    } catch (err) {
      if (!isDomainError(err) || err.httpStatus >= 500) throw err;
      // The project is gone, or the person who made the change lost access to it.
      await this.finish(job, 'failed', `${err.code}: ${err.detail}`);
      return true;
    }
    if (!point) {
      await this.finish(job, 'done', 'the point was deleted');
      return true;
    }
    const visible = job.cause === 'calibration' ? point.calibrations.some((c) => c.id === job.id) : ctx.version >= Number(job.min_version);
    if (!visible) {
      if (deps.clock.now().getTime() - Date.parse(iso(job.created_at)) > WAIT_FOR_CALIBRATION_MS) {
        await this.finish(job, 'done', `the ${job.cause === 'calibration' ? 'calibration' : 'change of the point'} was never stored`);
        return true;
      }
      // Not committed yet: look again after a moment (the lease is released shortly).
      await deps.db.query(`UPDATE recompute_jobs SET lease_until = now() + interval '200 milliseconds' WHERE id = $1`, [job.id]);
      return false;
    }
    let cursor = job;
    if (job.status === 'pending') {
      const { rows } = await deps.db.query<JobRow>(
        `UPDATE recompute_jobs SET status = 'running', started_at = coalesce(started_at, $2) WHERE id = $1 RETURNING *`,
        [job.id, deps.clock.now().toISOString()],
      );
      cursor = rows[0] ?? job;
    }
    while (!this.stopped) {
      const done = await recomputeBatch({ db: deps.db, alarms: deps.alarms, project: ctx.project, point }, cursor, deps.clock.now(), this.batchSize);
      deps.relay.kick();
      if (done) break;
      const { rows } = await deps.db.query<JobRow>('SELECT * FROM recompute_jobs WHERE id = $1', [job.id]);
      cursor = rows[0]!;
    }
    return true;
  }

  private async finish(job: JobRow, status: 'done' | 'failed', why: string): Promise<void> {
    this.deps.logger.info({ job: job.id, cause: job.cause, status, why }, 'recomputation ended');
    await this.deps.db.query(`UPDATE recompute_jobs SET status = $2, failure = $3, finished_at = now(), lease_until = NULL WHERE id = $1`, [
      job.id,
      status,
      why,
    ]);
  }
}
