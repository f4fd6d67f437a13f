import type { PointInfo, ProjectInfo } from './ingest-context.js';
import { formatMeasuredAt } from './measured-at.js';
import type { CheckedRecord, Status } from './record-rules.js';

type Values = Partial<Record<'x' | 'y' | 'z' | 'dx' | 'dy' | 'dz', number>>;

/** values of a record: the numbers it has (coordinates in m, displacements in mm). */
export function valuesOf(r: Pick<CheckedRecord, 'x' | 'y' | 'z' | 'dx' | 'dy' | 'dz'>): Values {
  const v: Values = {};
  if (r.x !== null) v.x = r.x;
  if (r.y !== null) v.y = r.y;
  if (r.z !== null) v.z = r.z;
  if (r.dx !== null) v.dx = r.dx;
  if (r.dy !== null) v.dy = r.dy;
  if (r.dz !== null) v.dz = r.dz;
  return v;
}

export interface EventRecord extends Pick<CheckedRecord, 'ms' | 'offset' | 'x' | 'y' | 'z' | 'dx' | 'dy' | 'dz' | 'status'> {
  id: string;
  point: Pick<PointInfo, 'id' | 'name' | 'sensorType' | 'warning' | 'alarm'>;
  qualityFlag: string;
}

/** One monitoring record of spec 2.6 as data.created and data.updated carry it. */
export function createdRecord(r: EventRecord) {
  return {
    data_id: r.id,
    point_id: r.point.id,
    point_name: r.point.name,
    sensor_type: r.point.sensorType,
    measured_at: formatMeasuredAt(r.ms, r.offset),
    values: valuesOf(r),
    status: r.status,
    quality_flag: r.qualityFlag,
  };
}

/** data.created (spec 2.7): every record of the accepted request. */
export function dataCreated(project: ProjectInfo, records: EventRecord[]) {
  return {
    project_id: project.id,
    project_name: project.name,
    records: records.map(createdRecord),
    total_count: records.length,
    abnormal_count: records.reduce((n, r) => n + (r.status === 'normal' ? 0 : 1), 0),
  };
}

function reasonOf(r: EventRecord): string {
  const parts = (['dx', 'dy', 'dz'] as const).filter((k) => r[k] !== null).map((k) => [k, r[k]!] as const);
  const [k, v] = parts.reduce((a, b) => (Math.abs(b[1]) > Math.abs(a[1]) ? b : a));
  const limit = r.status === 'alarm' ? r.point.alarm : r.point.warning;
  return `${k} ${v} mm reached the ${r.status} threshold of ${limit} mm (warning ${r.point.warning} mm, alarm ${r.point.alarm} mm)`;
}

/**
 * data.abnormal (spec 2.6/2.7): the records over a threshold, values reduced to dx, dy, dz, with
 * the point's thresholds and a reason, and no quality_flag. alert_level is the highest status
 * among them.
 */
export function dataAbnormal(project: ProjectInfo, records: EventRecord[]) {
  const abnormal = records.filter((r) => r.status !== 'normal');
  if (abnormal.length === 0) return null;
  const level: Status = abnormal.some((r) => r.status === 'alarm') ? 'alarm' : 'warning';
  return {
    project_id: project.id,
    project_name: project.name,
    alert_level: level,
    records: abnormal.map((r) => {
      const values: Values = {};
      if (r.dx !== null) values.dx = r.dx;
      if (r.dy !== null) values.dy = r.dy;
      if (r.dz !== null) values.dz = r.dz;
      return {
        data_id: r.id,
        point_id: r.point.id,
        point_name: r.point.name,
        sensor_type: r.point.sensorType,
        measured_at: formatMeasuredAt(r.ms, r.offset),
        values,
        status: r.status,
        threshold: { warning: r.point.warning, alarm: r.point.alarm },
        reason: reasonOf(r),
      };
    }),
  };
}
