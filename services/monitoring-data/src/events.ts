import { TextBytes } from '@mp/kit';
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
 * A finite number's JSON text, the same as String() gives, written into `w`. A value with at most
 * six decimals (coordinates to the micrometre, displacements as the rules round them) is written
 * from integers: the trimmed decimal of i / 10⁶ is then the only shortest text that reads back as
 * the value, which is what String() writes, and integer digits cost a fraction of a double's
 * shortest round trip (a test compares the two on random values). The digits go straight into
 * the bytes, without a text per number. Anything else goes through String().
 */
export function writeNumber(w: TextBytes, v: number): void {
  const scaled = Math.round(v * 1e6);
  if (scaled / 1e6 !== v || !(v > -1e9 && v < 1e9)) {
    w.text(String(v));
    return;
  }
  const abs = scaled < 0 ? -scaled : scaled;
  const whole = Math.trunc(abs / 1e6);
  let frac = abs - whole * 1e6;
  if (scaled < 0) w.text('-');
  w.digits(whole, 1);
  if (frac === 0) return;
  // trailing zeros of the six decimals are left out
  let places = 6;
  while (frac % 10 === 0) {
    frac /= 10;
    places--;
  }
  w.text('.').digits(frac, places);
}

/** writeNumber as a text (for callers that want one, and the tests). */
export function numberJson(v: number): string {
  const w = new TextBytes(32);
  writeNumber(w, v);
  return w.finish().toString('latin1');
}

const GEODETIC = ['x', 'y', 'z', 'dx', 'dy', 'dz'] as const;
const KEY_TEXT = { x: '"x":', y: '"y":', z: '"z":', dx: '"dx":', dy: '"dy":', dz: '"dz":' };

/** `"x":…,"dz":…` of a record: the values it has, in this order. */
function writeValues(w: TextBytes, r: CheckedRecord): void {
  if (r.channels) {
    let first = true;
    for (const k in r.channels) {
      w.text(first ? '' : ',')
        .text(JSON.stringify(k))
        .text(':');
      writeNumber(w, r.channels[k]!);
      first = false;
    }
    return;
  }
  let sep = '';
  for (const k of GEODETIC) {
    const v = r[k];
    if (v === null) continue;
    w.text(sep).text(KEY_TEXT[k]);
    writeNumber(w, v);
    sep = ',';
  }
}

/**
 * data.created (docs/rules.md#event-payloads: every record of the accepted request, as createdRecord shows one) as
 * the UTF-8 bytes of its JSON text, written directly — a test holds them equal to JSON.stringify
 * of the payload object — without building an object per record first (for a 1,000-record write
 * that was most of the event's cost), nor a text to encode afterwards: the outbox stores these
 * bytes and the relay publishes them (docs/adr/0126). `records[i]` has id `ids[i]` and `measuredAt[i]`.
 */
export function dataCreatedBytes(
  project: ProjectInfo,
  records: readonly CheckedRecord[],
  ids: readonly string[],
  measuredAt: readonly string[],
  qualityFlag = 'valid',
): { bytes: Buffer; abnormalCount: number } {
  // Each point's part of a record, written once per write (keyed by the point object itself).
  const pointJson = new Map<PointInfo, string>();
  const tail = `},"status":"`;
  const flag = `","quality_flag":${JSON.stringify(qualityFlag)}}`;
  let abnormal = 0;
  // about 300 bytes per total-station record
  const w = new TextBytes(256 + records.length * 320);
  w.text(`{"project_id":${JSON.stringify(project.id)},"project_name":${JSON.stringify(project.name)},"records":[`);
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    let point = pointJson.get(r.point);
    if (point === undefined) {
      point = `","point_id":${JSON.stringify(r.point.id)},"point_name":${JSON.stringify(r.point.name)},"sensor_type":${JSON.stringify(r.point.sensorType)},"measured_at":"`;
      pointJson.set(r.point, point);
    }
    if (r.status !== 'normal') abnormal++;
    w.text(i ? ',{"data_id":"' : '{"data_id":"')
      .text(ids[i]!)
      .text(point)
      .text(measuredAt[i]!)
      .text('","values":{');
    writeValues(w, r);
    w.text(tail).text(r.status).text(flag);
  }
  w.text(`],"total_count":${records.length},"abnormal_count":${abnormal}}`);
  return { bytes: w.finish(), abnormalCount: abnormal };
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
