import type { monitoringData } from '@mp/contracts';
import type { PointInfo } from '../gather.js';

/** The CSV header and XLSX record columns (docs/rules.md#report-columns: exactly these, in this order). */
export const RECORD_HEADER = [
  'data_id',
  'point_id',
  'point_number',
  'point_name',
  'measured_at',
  'x',
  'y',
  'z',
  'dx',
  'dy',
  'dz',
  'status',
  'quality_flag',
] as const;

/** A record as a row: text cells as strings, values as numbers (null when the record has none). */
export function recordRow(r: monitoringData.DataRecord, points: Map<string, PointInfo>): (string | number | null)[] {
  const p = points.get(r.pointId);
  const v = r.values ?? {};
  return [
    r.id,
    r.pointId,
    p?.number ?? '',
    p?.name ?? '',
    r.measuredAt,
    v.x ?? null,
    v.y ?? null,
    v.z ?? null,
    v.dx ?? null,
    v.dy ?? null,
    v.dz ?? null,
    r.status,
    r.qualityFlag,
  ];
}
