import type { PointInfo, ProjectInfo } from './ingest-context.js';
import { formatMeasuredAt } from './measured-at.js';
import { VALUE_KEYS, type CheckedRecord, type Status } from './record-rules.js';

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

/** measured_at strings of many records, each distinct instant formatted once (instruments read many points at one instant). */
export function formatAll(records: readonly Pick<CheckedRecord, 'ms' | 'offset'>[]): string[] {
  const memo = new Map<number, string>();
  const out = new Array<string>(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const key = r.ms * 2048 + r.offset + 1024;
    let text = memo.get(key);
    if (text === undefined) memo.set(key, (text = formatMeasuredAt(r.ms, r.offset)));
    out[i] = text;
  }
  return out;
}

/**
 * data.created (spec 2.7: every record of the accepted request, as createdRecord shows one) as
 * JSON text, written directly — a test holds it equal to JSON.stringify of the payload object —
 * without building an object per record first: for a 1,000-record
 * write that is most of the event's cost. `records[i]` has id `ids[i]` and `measuredAt[i]`.
 */
export function dataCreatedJson(project: ProjectInfo, records: readonly CheckedRecord[], ids: readonly string[], measuredAt: readonly string[], qualityFlag = 'valid'): { json: string; abnormalCount: number } {
  const pointJson = new Map<string, string>();
  const flag = JSON.stringify(qualityFlag);
  let abnormal = 0;
  let out = `{"project_id":${JSON.stringify(project.id)},"project_name":${JSON.stringify(project.name)},"records":[`;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    let point = pointJson.get(r.point.id);
    if (point === undefined) {
      point = `"point_id":${JSON.stringify(r.point.id)},"point_name":${JSON.stringify(r.point.name)},"sensor_type":${JSON.stringify(r.point.sensorType)}`;
      pointJson.set(r.point.id, point);
    }
    let values = '';
    for (const k of VALUE_KEYS) {
      const v = r[k];
      // A finite number's JSON is its String() (NaN and ±Infinity never reach a record).
      if (v !== null) values += `${values ? ',' : ''}"${k}":${v}`;
    }
    if (r.status !== 'normal') abnormal++;
    out += `${i ? ',' : ''}{"data_id":"${ids[i]}",${point},"measured_at":"${measuredAt[i]}","values":{${values}},"status":"${r.status}","quality_flag":${flag}}`;
  }
  return { json: `${out}],"total_count":${records.length},"abnormal_count":${abnormal}}`, abnormalCount: abnormal };
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
