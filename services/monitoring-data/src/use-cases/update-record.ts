import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { appendEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { createdRecord, dataAbnormal, type EventRecord } from '../events.js';
import { formatMeasuredAt } from '../measured-at.js';
import { checkProjectAcceptsData, checkRecords, type Status } from '../record-rules.js';
import { channelsOf, loadRecord, RECORD_COLUMNS, toRecord, type RecordRow } from '../record-row.js';
import { recomputeRollups } from '../rollups.js';

export const QUALITY_FLAGS = ['valid', 'suspect', 'invalid'] as const;
const NAN = Number.NaN;

export function checkVersion(row: { version: number }, expected: number | undefined): void {
  if (expected !== undefined && expected !== row.version) {
    throw new DomainError('409004', {
      field: 'version',
      detail: `The record is at version ${row.version}; the request expected ${expected}.`,
      suggestion: 'Read the record again (GET /v3/data/{data_id}) and repeat the change with its current version.',
    });
  }
}

/** One record's instrument channels as the compressed columns of RecordColumns. */
function channelColumns(channels: Record<string, number> | undefined) {
  const names = Object.keys(channels ?? {});
  if (names.length === 0) return { channelNames: [], channelOffset: [], channelIndex: [], channelValue: [] };
  return { channelNames: names, channelOffset: [0, names.length], channelIndex: names.map((_, k) => k), channelValue: names.map((k) => channels![k]!) };
}

export function eventRecordOf(row: RecordRow, point: EventRecord['point']): EventRecord {
  return {
    id: row.id,
    point,
    ms: Date.parse(row.measured_at),
    offset: row.utc_offset,
    x: row.x,
    y: row.y,
    z: row.z,
    dx: row.dx,
    dy: row.dy,
    dz: row.dz,
    channels: channelsOf(row),
    status: row.status as Status,
    qualityFlag: row.quality_flag,
  };
}

/**
 * Corrections (PATCH /data/{id}): new values (checked by the write rules 422201/422204/422205 and
 * derived again; the abrupt-change rule does not apply, a correction being deliberate), a
 * quality_flag (`invalid` takes the record out of series, latest values and abrupt-change
 * comparisons) and a remark. Writes data.updated, and data.abnormal when corrected values are
 * over a threshold, in the same transaction.
 */
export async function updateRecord(deps: DataDeps, req: monitoringData.UpdateRecordRequest, caller: CallerContext): Promise<monitoringData.DataRecord> {
  const { row, ctx } = await loadRecord(deps, caller, req.id, true);
  checkProjectAcceptsData(ctx);
  checkVersion(row, req.expectedVersion);
  if (req.qualityFlag !== undefined && !(QUALITY_FLAGS as readonly string[]).includes(req.qualityFlag)) {
    throw new DomainError('422103', { field: 'quality_flag', detail: `quality_flag must be one of ${QUALITY_FLAGS.join(', ')}.` });
  }
  if (req.remark !== undefined && req.remark.length > 500)
    throw new DomainError('400003', { field: 'remark', detail: 'remark is at most 500 characters long.' });
  const next = { ...row };
  const changed: string[] = [];
  if (req.values) {
    const v = req.values;
    const cols: monitoringData.RecordColumns = {
      pointId: [row.point_id],
      measuredAt: [formatMeasuredAt(Date.parse(row.measured_at), row.utc_offset)],
      x: [v.x ?? NAN],
      y: [v.y ?? NAN],
      z: [v.z ?? NAN],
      dx: [v.dx ?? NAN],
      dy: [v.dy ?? NAN],
      dz: [v.dz ?? NAN],
      precision: [],
      pointIds: [],
      pointIndex: [],
      instants: [],
      instantIndex: [],
      ...channelColumns(v.channels?.values),
    };
    const { ok, failures } = checkRecords(cols, ctx, Number.POSITIVE_INFINITY);
    const f = failures[0];
    if (f)
      throw new DomainError(f.code, { field: f.field.replace(/^records\[0\]\./, ''), detail: f.detail, ...(f.suggestion ? { suggestion: f.suggestion } : {}) });
    const r = ok[0]!;
    Object.assign(next, { x: r.x, y: r.y, z: r.z, dx: r.dx, dy: r.dy, dz: r.dz, channels: r.channels, status: r.status });
    changed.push('values');
    if (r.status !== row.status) changed.push('status');
  }
  if (req.qualityFlag !== undefined && req.qualityFlag !== row.quality_flag) {
    next.quality_flag = req.qualityFlag;
    changed.push('quality_flag');
  }
  if (req.clear.includes('remark')) {
    next.remark = null;
    changed.push('remark');
  } else if (req.remark !== undefined) {
    next.remark = req.remark;
    changed.push('remark');
  }
  if (changed.length === 0) return toRecord(row);

  const now = deps.clock.now().toISOString();
  const point = ctx.points.get(row.point_id);
  const eventPoint = point ?? { id: row.point_id, name: '', sensorType: '', warning: 0, alarm: 0 };
  const updated = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<RecordRow>(
      `UPDATE data_records SET x = $3, y = $4, z = $5, dx = $6, dy = $7, dz = $8, status = $9, quality_flag = $10, remark = $11, updated_at = $12,
                channels = $14::jsonb, version = version + 1
        WHERE id = $1 AND measured_at = $2 AND version = $13 RETURNING ${RECORD_COLUMNS}`,
      [
        row.id,
        row.measured_at,
        next.x,
        next.y,
        next.z,
        next.dx,
        next.dy,
        next.dz,
        next.status,
        next.quality_flag,
        next.remark,
        now,
        row.version,
        next.channels === null ? null : typeof next.channels === 'string' ? next.channels : JSON.stringify(next.channels),
      ],
    );
    const u = rows[0];
    if (!u)
      throw new DomainError('409004', {
        field: 'version',
        detail: 'The record was changed by another request meanwhile.',
        suggestion: 'Read the record again and repeat the change.',
      });
    // a series counts values and quality; a remark alone leaves the rollups as they are
    if (changed.includes('values') || changed.includes('quality_flag')) await recomputeRollups(tx, u.point_id, Date.parse(u.measured_at));
    const base = {
      tenantId: caller.tenantId,
      environment: caller.environment,
      occurredAt: now,
      ...(caller.traceparent ? { traceparent: caller.traceparent } : {}),
    };
    const record = eventRecordOf(u, eventPoint);
    await appendEvent(tx, {
      ...base,
      type: 'data.updated',
      data: {
        project_id: ctx.project.id,
        project_name: ctx.project.name,
        change: 'updated',
        changed_fields: changed,
        records: [createdRecord(record)],
        remark: u.remark,
      },
    });
    if (req.values && u.status !== 'normal') {
      const abnormal = dataAbnormal(ctx.project, [record]);
      if (abnormal) await appendEvent(tx, { ...base, type: 'data.abnormal', data: abnormal });
    }
    return u;
  });
  deps.relay.kick();
  return toRecord(updated);
}
