import { STATUS_RANK } from './channel-rules.js';
import type { PointInfo, ProjectInfo } from './ingest-context.js';
import { formatMeasuredAt } from './measured-at.js';
import type { CheckedRecord, Status } from './record-rules.js';

type Values = Record<string, number>;

/** values of a record: the numbers it has (coordinates in m, displacements in mm, or its instrument channels). */
export function valuesOf(r: Pick<CheckedRecord, 'x' | 'y' | 'z' | 'dx' | 'dy' | 'dz'> & { channels?: Record<string, number> | null }): Values {
  if (r.channels) return { ...r.channels };
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
  channels?: Record<string, number> | null;
  /** the channel whose limit gave the status */
  channel?: string | null;
  id: string;
  point: Pick<PointInfo, 'id' | 'name' | 'sensorType' | 'warning' | 'alarm'> & Partial<Pick<PointInfo, 'triggerLevels' | 'type'>>;
  qualityFlag: string;
}

/** One monitoring record as data.created and data.updated carry it. */
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
 * A finite number's JSON text, the same as String() gives. A value with at most six decimals
 * (coordinates to the micrometre, displacements as the rules round them) is written from integers:
 * the trimmed decimal of i / 10⁶ is then the only shortest text that reads back as the value, which
 * is what String() writes, and integer text costs a fraction of a double's shortest round trip
 * (a test compares the two on random values). Anything else goes through String().
 */
export function numberJson(v: number): string {
  const scaled = Math.round(v * 1e6);
  if (scaled / 1e6 !== v || !(v > -1e9 && v < 1e9)) return String(v);
  const abs = scaled < 0 ? -scaled : scaled;
  const whole = Math.trunc(abs / 1e6);
  const frac = abs - whole * 1e6;
  const sign = scaled < 0 ? '-' : '';
  if (frac === 0) return `${sign}${whole}`;
  let digits = String(frac).padStart(6, '0');
  let end = 6;
  while (digits.charCodeAt(end - 1) === 48) end--;
  if (end < 6) digits = digits.slice(0, end);
  return `${sign}${whole}.${digits}`;
}

/** `"x":…,"dz":…` of a record: the values it has, in VALUE_KEYS order. */
function valuesJson(r: CheckedRecord): string {
  if (r.channels) {
    let text = '';
    for (const k in r.channels) text += `${text ? ',' : ''}${JSON.stringify(k)}:${numberJson(r.channels[k]!)}`;
    return text;
  }
  let out = r.x !== null ? `"x":${numberJson(r.x)}` : '';
  if (r.y !== null) out += `${out ? ',' : ''}"y":${numberJson(r.y)}`;
  if (r.z !== null) out += `${out ? ',' : ''}"z":${numberJson(r.z)}`;
  if (r.dx !== null) out += `${out ? ',' : ''}"dx":${numberJson(r.dx)}`;
  if (r.dy !== null) out += `${out ? ',' : ''}"dy":${numberJson(r.dy)}`;
  if (r.dz !== null) out += `${out ? ',' : ''}"dz":${numberJson(r.dz)}`;
  return out;
}

/**
 * data.created (docs/rules.md#event-payloads: every record of the accepted request, as createdRecord shows one) as
 * JSON text, written directly — a test holds it equal to JSON.stringify of the payload object —
 * without building an object per record first: for a 1,000-record
 * write that is most of the event's cost. `records[i]` has id `ids[i]` and `measuredAt[i]`.
 */
export function dataCreatedJson(
  project: ProjectInfo,
  records: readonly CheckedRecord[],
  ids: readonly string[],
  measuredAt: readonly string[],
  qualityFlag = 'valid',
): { json: string; abnormalCount: number } {
  // Each point's part of a record, written once per write (keyed by the point object itself).
  const pointJson = new Map<PointInfo, string>();
  const tail = `},"status":"`;
  const flag = `","quality_flag":${JSON.stringify(qualityFlag)}}`;
  let abnormal = 0;
  let out = `{"project_id":${JSON.stringify(project.id)},"project_name":${JSON.stringify(project.name)},"records":[`;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    let point = pointJson.get(r.point);
    if (point === undefined) {
      point = `","point_id":${JSON.stringify(r.point.id)},"point_name":${JSON.stringify(r.point.name)},"sensor_type":${JSON.stringify(r.point.sensorType)},"measured_at":"`;
      pointJson.set(r.point, point);
    }
    if (r.status !== 'normal') abnormal++;
    out += `${i ? ',' : ''}{"data_id":"${ids[i]}${point}${measuredAt[i]}","values":{${valuesJson(r)}${tail}${r.status}${flag}`;
  }
  return { json: `${out}],"total_count":${records.length},"abnormal_count":${abnormal}}`, abnormalCount: abnormal };
}

function reasonOf(r: EventRecord): string {
  if (r.channels) return triggerReason(r);
  const parts = (['dx', 'dy', 'dz'] as const).filter((k) => r[k] !== null).map((k) => [k, r[k]!] as const);
  const [k, v] = parts.reduce((a, b) => (Math.abs(b[1]) > Math.abs(a[1]) ? b : a));
  const limit = r.status === 'alarm' ? r.point.alarm : r.point.warning;
  return `${k} ${v} mm reached the ${r.status} threshold of ${limit} mm (warning ${r.point.warning} mm, alarm ${r.point.alarm} mm)`;
}

/**
 * data.abnormal (docs/rules.md#event-payloads): the records over a threshold, values reduced to dx, dy, dz, with
 * the point's thresholds and a reason, and no quality_flag. alert_level is the highest status
 * among them.
 */
export function dataAbnormal(project: ProjectInfo, records: EventRecord[]) {
  const abnormal = records.filter((r) => r.status !== 'normal');
  if (abnormal.length === 0) return null;
  const level: Status = abnormal.reduce<Status>((a, r) => (STATUS_RANK[r.status] > STATUS_RANK[a] ? r.status : a), 'warning');
  return {
    project_id: project.id,
    project_name: project.name,
    alert_level: level,
    records: abnormal.map((r) => {
      // docs/rules.md#event-payloads: a total station's abnormal record holds dx, dy, dz only; an instrument's, its channels
      const values: Values = r.channels ? { ...r.channels } : {};
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
        // level and channel name the limit crossed; a geodetic point with only warning and alarm
        // thresholds keeps the original record shape exactly (docs/instruments.md)
        ...(r.channels || r.point.triggerLevels?.length ? { level: r.status, ...(r.channel ? { channel: r.channel } : {}) } : {}),
      };
    }),
  };
}

/** "pore_pressure 312.5 kPa crossed the alarm level (above 300 kPa)". */
function triggerReason(r: EventRecord): string {
  const channel = r.channel ?? '';
  const value = r.channels?.[channel];
  const unit = r.point.type?.channels.find((c) => c.name === channel)?.unit ?? '';
  const t = r.point.triggerLevels?.find((l) => l.level === r.status && l.channel === channel);
  const limits = [t?.above !== undefined ? `above ${t.above} ${unit}` : null, t?.below !== undefined ? `below ${t.below} ${unit}` : null]
    .filter(Boolean)
    .join(' or ');
  return `${channel} ${value} ${unit} crossed the ${r.status} level${limits ? ` (${limits})` : ''}`.replace(/ {2,}/g, ' ');
}
