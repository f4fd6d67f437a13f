import type { monitoringData } from '@mp/contracts';
import type { TextBytes } from '@mp/kit';
import { pointIdOf } from './record-columns.js';

/** A record's values: x … dz of the geodetic types, the channels by name of the others. */
function valuesOf(v: monitoringData.Values | undefined): Record<string, number> {
  if (!v) return {};
  const { channels, ...geodetic } = v;
  return { ...geodetic, ...channels?.values };
}

/** API shapes (snake_case JSON) of the monitoring-data contract messages. */
export const presentData = {
  /** A stored record: `data_id` as in the data events; coordinates in m, displacements in mm. */
  record: (r: monitoringData.DataRecord) => ({
    data_id: r.id,
    project_id: r.projectId,
    point_id: r.pointId,
    measured_at: r.measuredAt,
    values: valuesOf(r.values),
    status: r.status,
    quality_flag: r.qualityFlag,
    remark: r.remark ?? null,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    version: r.version,
    // an instrument record's channel units, where the answer carries them (latest values)
    ...(Object.keys(r.units ?? {}).length ? { units: { ...r.units } } : {}),
  }),
  /**
   * The answer to a synchronous write, every stored record in request order
   * (`{ project_id, total_count, abnormal_count, records: [{ data_id, point_id, measured_at,
   * status, quality_flag }] }`), written as JSON bytes into `w` without an object per record nor
   * a text to encode afterwards (docs/adr/0126). Only the project id comes from the caller
   * unchecked, so only it is escaped: data ids, instants and statuses are written by the service,
   * and point ids matched /^pt_[0-9a-z]{20}$/ before the write. The service answers in the
   * dictionary form of the request, or plainly (an older one).
   */
  written: (w: TextBytes, projectId: string, cols: monitoringData.RecordColumns, res: monitoringData.WriteRecordsResult): void => {
    const statusOf = res.statusIndex.length ? (i: number) => res.statuses[res.statusIndex[i]!]! : (i: number) => res.status[i]!;
    const instantOf = res.instantIndex.length ? (i: number) => res.instants[res.instantIndex[i]!]! : (i: number) => res.measuredAt[i]!;
    w.text(`{"project_id":${JSON.stringify(projectId)},"total_count":${res.totalCount},"abnormal_count":${res.abnormalCount},"records":[`);
    for (let i = 0; i < res.dataId.length; i++) {
      w.text(i ? ',{"data_id":"' : '{"data_id":"')
        .text(res.dataId[i]!)
        .text('","point_id":"')
        .text(pointIdOf(cols, i))
        .text('","measured_at":"')
        .text(instantOf(i))
        .text('","status":"')
        .text(statusOf(i))
        .text('","quality_flag":"valid"}');
    }
    w.text(']}');
  },
  batch: (b: monitoringData.Batch) => ({
    batch_id: b.id,
    project_id: b.projectId,
    status: b.status,
    total_count: b.totalCount,
    processed_count: b.processedCount,
    accepted_count: b.acceptedCount,
    rejected_count: b.rejectedCount,
    abnormal_count: b.abnormalCount,
    failure: b.failureCode ? { code: Number(b.failureCode), detail: b.failureDetail ?? '' } : null,
    created_at: b.createdAt,
    started_at: b.startedAt ?? null,
    completed_at: b.completedAt ?? null,
    errors: {
      items: b.errors.map((e) => ({ index: e.index, code: Number(e.code), field: e.field, detail: e.detail })),
      next_cursor: b.errorsPage?.nextCursor ?? null,
      has_more: b.errorsPage?.hasMore ?? false,
    },
  }),
  /** A series: of one channel (`channel`, `unit`, min/avg/max per bucket) or of dx, dy, dz. */
  series: (s: monitoringData.Series) =>
    s.channel !== undefined
      ? {
          point_id: s.pointId,
          project_id: s.projectId,
          channel: s.channel,
          unit: s.unit ?? '',
          from: s.from,
          to: s.to,
          interval_seconds: s.intervalSeconds,
          buckets: s.buckets.map((b) => ({ start: b.start, count: b.count, min: b.value?.min ?? 0, avg: b.value?.avg ?? 0, max: b.value?.max ?? 0 })),
        }
      : seriesOfAxes(s),
};

/** The series of a geodetic point asked without `channel`: dx, dy, dz per bucket, as the specification describes. */
function seriesOfAxes(s: monitoringData.Series) {
  return {
    point_id: s.pointId,
    project_id: s.projectId,
    from: s.from,
    to: s.to,
    interval_seconds: s.intervalSeconds,
    buckets: s.buckets.map((b) => ({
      start: b.start,
      count: b.count,
      ...(b.dx ? { dx: { ...b.dx } } : {}),
      ...(b.dy ? { dy: { ...b.dy } } : {}),
      ...(b.dz ? { dz: { ...b.dz } } : {}),
    })),
  };
}
