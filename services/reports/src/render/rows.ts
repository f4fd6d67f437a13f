import type { monitoringData } from '@mp/contracts';
import { valueOf, type PointInfo } from '../gather.js';

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

/**
 * The header of a report's records: RECORD_HEADER, then a column per channel of its instrument
 * points, named with its unit (`pore_pressure (kPa)`; docs/instruments.md#exports). A report of
 * geodetic points only has exactly RECORD_HEADER.
 */
export function recordHeader(channels: readonly { name: string; unit: string }[]): string[] {
  return [...RECORD_HEADER, ...channels.map((c) => (c.unit ? `${c.name} (${c.unit})` : c.name))];
}

/** A record as a row: text cells as strings, values as numbers (null when the record has none), then its channels' values. */
export function recordRow(
  r: monitoringData.DataRecord,
  points: Map<string, PointInfo>,
  channels: readonly { name: string }[] = [],
): (string | number | null)[] {
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
    ...channels.map((c) => valueOf(r, c.name)),
  ];
}
