import type { monitoringData, RecordStatus } from '@mp/contracts';
import { checkChannels, STATUS_RANK, triggerStatus } from './channel-rules.js';
import { DomainError } from '@mp/errors';
import { isId } from '@mp/kit';
import type { PointInfo, ProjectContext } from './ingest-context.js';
import { localDate, parseMeasuredAt, type MeasuredAt } from './measured-at.js';
import { completeChannels } from './instrument-channels.js';

export type Status = RecordStatus;

/** A refused record: the code, the field that names it (`records[3].measured_at`) and why. */
export interface RecordFailure {
  index: number;
  code: string;
  field: string;
  detail: string;
  suggestion?: string;
}

/** A record that passed the per-record rules, with displacements derived and status set. */
export interface CheckedRecord {
  index: number;
  point: PointInfo;
  ms: number;
  offset: number;
  x: number | null;
  y: number | null;
  z: number | null;
  dx: number | null;
  dy: number | null;
  dz: number | null;
  /** The instrument channels by name (docs/instruments.md); null for a geodetic record. */
  channels: Record<string, number> | null;
  status: Status;
  /** The channel whose limit gave the status (dx, dy or dz for a displacement threshold); null when normal. */
  channel: string | null;
}

/** A measured_at later than this after "now" is a clock error, not a measurement (422202). */
const FUTURE_TOLERANCE_MS = 10 * 60_000;
/**
 * The largest displacement a reading may hold, millimetres (100 m, given or derived from a
 * coordinate): beyond it the instrument or the unit is wrong, not the ground (422201). It also keeps
 * every value's micrometre sum of a rollup bucket far inside a 64-bit integer.
 */
export const MAX_DISPLACEMENT_MM = 100_000;
/** Tolerance of 422204 when the point states no precision, millimetres. */
const DEFAULT_AGREEMENT_MM = 1;

const COORDS = ['x', 'y', 'z'] as const;
const DISPLACEMENTS = ['dx', 'dy', 'dz'] as const;

/**
 * The project-level rules of a data write (docs/rules.md#project-rules): not started → 422303, archived → 422301.
 * Paused and completed projects keep receiving data: the rules forbid only new tasks in a
 * paused project, monitoring goes on during a pause, and the last readings of a completed project
 * often arrive after it was closed (it can also be reopened); archiving makes it read-only.
 */
export function checkProjectAcceptsData(ctx: ProjectContext): void {
  const { status, id } = ctx.project;
  if (status === 'not_started') {
    throw new DomainError('422303', {
      field: 'project_id',
      detail: `Project ${id} has not started; it accepts monitoring data once it is in progress.`,
      suggestion: 'Start the project with PUT /v3/projects/{project_id}/status {"status":"in_progress"}, then write again.',
    });
  }
  if (status === 'archived') {
    throw new DomainError('422301', {
      field: 'project_id',
      detail: `Project ${id} is archived; its data can no longer be changed.`,
      suggestion: 'Archived projects are read-only: read their data, and write to a project that is not archived.',
    });
  }
}

/** Rounds derived millimetres to the nanometre, dropping floating-point noise (0.023 m → 23 mm, not 22.9999…). */
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/** Smallest step the written number can express: 3512345.12 → 0.01. Trailing zeros are lost in JSON. */
export function resolutionOf(v: number): number {
  const s = String(Math.abs(v));
  const e = s.indexOf('e');
  const mantissa = e >= 0 ? s.slice(0, e) : s;
  const dot = mantissa.indexOf('.');
  const decimals = (dot >= 0 ? mantissa.length - dot - 1 : 0) - (e >= 0 ? Number(s.slice(e + 1)) : 0);
  return 10 ** -decimals;
}

const num = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? null : v);

/**
 * Applies the per-record rules in this order, the first that fails refusing the record:
 * formats (400004 point_id / measured_at, 400003 before 1970), a value present (422101), the point
 * (404003 unknown, 422103 inactive), time (422202 before the project start on the site's calendar,
 * or in the future), plausible coordinates (422201), precision (422205), coordinates agreeing with
 * given displacements (422204), plausible displacements (422201, at most MAX_DISPLACEMENT_MM), and
 * a second record for the same point and instant in the same request (409003). Displacements are derived from coordinates where missing:
 * d = (coordinate − reference) × 1000 mm. Status: the largest |dx|, |dy|, |dz| reaching the alarm
 * threshold is `alarm`, else reaching the warning threshold `warning`, else `normal`.
 */
export function checkRecords(cols: monitoringData.RecordColumns, ctx: ProjectContext, nowMs: number): { ok: CheckedRecord[]; failures: RecordFailure[] } {
  const n = cols.pointId.length;
  for (const [name, col] of Object.entries(cols) as [string, unknown[]][]) {
    // the channel columns are compressed rows, checked below (channel_offset has n + 1 entries)
    if (name.startsWith('channel')) continue;
    // A numeric column may be left empty when no record has that value.
    if (col.length !== n && !(name !== 'pointId' && name !== 'measuredAt' && col.length === 0)) {
      throw new DomainError('400001', { field: 'records', detail: `Column ${name} has ${col.length} entries for ${n} records.` });
    }
  }
  const ok: CheckedRecord[] = [];
  const failures: RecordFailure[] = [];
  // Records per point and instant already accepted in this request (instant → index), for 409003.
  const seen = new Map<PointInfo, Map<number, number>>();
  // Instruments read many points at one instant: each distinct measured_at is parsed once.
  const times = new Map<string, { at: MeasuredAt; date: string } | null>();
  // One closure over one index for the whole loop (a closure per record was a visible cost).
  let i = 0;
  const f = (code: string, field: string, detail: string, suggestion?: string) =>
    failures.push({ index: i, code, field: `records[${i}].${field}`, detail, ...(suggestion ? { suggestion } : {}) });
  /** A second record of a point at one instant in this request: 409003 recorded; else the instant is taken. */
  const heldAlready = (point: PointInfo, pointId: string, ms: number): boolean => {
    let instants = seen.get(point);
    if (instants === undefined) seen.set(point, (instants = new Map()));
    const first = instants.get(ms);
    if (first !== undefined) {
      f('409003', 'measured_at', `records[${first}] already holds point ${pointId} at this instant.`, 'Send one record per point and measured_at.');
      return true;
    }
    instants.set(ms, i);
    return false;
  };
  /**
   * The displacement on axis `k` (mm): the one given, or the one its coordinate gives against the
   * reference; undefined, with 422204 recorded, when both are there and disagree.
   */
  const displacement = (
    k: 'x' | 'y' | 'z',
    coordinate: number | null,
    reference: number,
    given: number | null,
    tolerance: number,
  ): number | null | undefined => {
    if (coordinate === null) return given;
    const derived = round6((coordinate - reference) * 1000);
    if (given === null) return derived;
    if (Math.abs(given - derived) <= tolerance) return given;
    failures.push({
      index: i,
      code: '422204',
      field: `records[${i}].values.d${k}`,
      detail: `d${k} = ${given} mm, but ${k} − reference ${k} = ${derived} mm (allowed difference ${tolerance - 1e-6} mm).`,
    });
    return undefined;
  };
  // Instrument channels, in compressed rows (RecordColumns.channel_offset); empty for a write of
  // geodetic readings only.
  const offsets = cols.channelOffset;
  const hasChannels = offsets.length > 0;
  if (hasChannels && (offsets.length !== n + 1 || offsets[n] !== cols.channelIndex.length || cols.channelIndex.length !== cols.channelValue.length)) {
    throw new DomainError('400001', { field: 'records', detail: `The channel columns do not fit ${n} records.` });
  }
  for (const k of cols.channelIndex)
    if (k >= cols.channelNames.length) throw new DomainError('400001', { field: 'records', detail: 'A channel index is out of range.' });
  // The loop reads values into locals and builds no objects but the six values the precision
  // rule reads and the record it accepts: it runs for every record of every write
  // (bench/ingest/micro.mjs).
  for (i = 0; i < n; i++) {
    const pointId = cols.pointId[i]!;
    // A point of the project has a well-formed id, so only an unknown one needs the format check.
    const point = ctx.points.get(pointId);
    if (point === undefined && !isId('point', pointId)) {
      f('400004', 'point_id', 'point_id is not a monitoring point id (pt_…).', 'Use the id returned when the point was created.');
      continue;
    }
    let time = times.get(cols.measuredAt[i]!);
    if (time === undefined) {
      const parsed = parseMeasuredAt(cols.measuredAt[i]!);
      time = parsed && { at: parsed, date: localDate(parsed.ms, parsed.offset) };
      times.set(cols.measuredAt[i]!, time);
    }
    if (!time) {
      f(
        '400004',
        'measured_at',
        'measured_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-03-01T08:30:00+08:00.',
        'Send measured_at as YYYY-MM-DDTHH:mm:ss with Z or ±HH:MM.',
      );
      continue;
    }
    const at = time.at;
    if (at.ms < 0) {
      f('400003', 'measured_at', 'measured_at is before 1970-01-01.');
      continue;
    }
    const x = num(cols.x[i]),
      y = num(cols.y[i]),
      z = num(cols.z[i]);
    const givenDx = num(cols.dx[i]),
      givenDy = num(cols.dy[i]),
      givenDz = num(cols.dz[i]);
    const channelCount = hasChannels ? offsets[i + 1]! - offsets[i]! : 0;
    if (point?.type && !point.type.geodetic) {
      // A point without coordinates: its record holds the type's channels (docs/instruments.md).
      if (!point.active) {
        f(
          '422103',
          'point_id',
          `Monitoring point ${pointId} is inactive and takes no data.`,
          'Reactivate the point with PATCH /v3/points/{point_id} {"active":true}.',
        );
        continue;
      }
      const geodeticKey =
        x !== null ? 'x' : y !== null ? 'y' : z !== null ? 'z' : givenDx !== null ? 'dx' : givenDy !== null ? 'dy' : givenDz !== null ? 'dz' : null;
      if (geodeticKey) {
        f(
          '422101',
          `values.${geodeticKey}`,
          `A ${point.sensorType} has no channel ${geodeticKey}; its channels are ${point.type.channels.map((c) => c.name).join(', ')}.`,
        );
        continue;
      }
      const names = new Array<string>(channelCount);
      const vals = new Array<number>(channelCount);
      for (let k = 0; k < channelCount; k++) {
        names[k] = cols.channelNames[cols.channelIndex[offsets[i]! + k]!]!;
        vals[k] = cols.channelValue[offsets[i]! + k]!;
      }
      const checked = checkChannels(point.type, names, vals);
      if ('code' in checked) {
        f(checked.code, `values.${checked.channel}`, checked.detail, checked.suggestion);
        continue;
      }
      if (ctx.project.startDate && time.date < ctx.project.startDate) {
        f('422202', 'measured_at', `measured_at ${cols.measuredAt[i]} is before the project start date ${ctx.project.startDate}.`);
        continue;
      }
      if (at.ms > nowMs + FUTURE_TOLERANCE_MS) {
        f('422202', 'measured_at', `measured_at ${cols.measuredAt[i]} lies in the future.`, 'Check the instrument clock and the UTC offset of measured_at.');
        continue;
      }
      if (heldAlready(point, pointId, at.ms)) continue;
      // Raw readings converted by the calibration valid at measured_at, then derived channels;
      // trigger levels apply to the completed channels (docs/instruments.md).
      if (point.calibrations.length > 0 || point.derived.length > 0) completeChannels(point, checked.channels, at.ms);
      const crossed = triggerStatus(point.triggerLevels, (c) => checked.channels[c]);
      ok.push({
        index: i,
        point,
        ms: at.ms,
        offset: at.offset,
        x: null,
        y: null,
        z: null,
        dx: null,
        dy: null,
        dz: null,
        channels: checked.channels,
        status: crossed?.level ?? 'normal',
        channel: crossed?.channel ?? null,
      });
      continue;
    }
    if (channelCount > 0 && point) {
      const name = cols.channelNames[cols.channelIndex[offsets[i]!]!]!;
      f(
        '422101',
        `values.${name}`,
        `A ${point?.sensorType ?? 'geodetic point'} has no channel ${name}; its values are x, y, z (m) and dx, dy, dz (mm).`,
        'Send the channels of the point’s sensor type (GET /v3/sensor-types).',
      );
      continue;
    }
    if (channelCount === 0 && x === null && y === null && z === null && givenDx === null && givenDy === null && givenDz === null) {
      f(
        '422101',
        'values',
        'values holds none of x, y, z (coordinates, m) or dx, dy, dz (displacements, mm).',
        'Send at least one coordinate or displacement.',
      );
      continue;
    }
    if (!point) {
      f(
        '404003',
        'point_id',
        `Monitoring point ${pointId} does not exist in project ${ctx.project.id}.`,
        'Check the point id, or list the points with GET /v3/projects/{project_id}/points.',
      );
      continue;
    }
    if (!point.active) {
      f(
        '422103',
        'point_id',
        `Monitoring point ${pointId} is inactive and takes no data.`,
        'Reactivate the point with PATCH /v3/points/{point_id} {"active":true}, or write to an active point.',
      );
      continue;
    }
    if (ctx.project.startDate && time.date < ctx.project.startDate) {
      f('422202', 'measured_at', `measured_at ${cols.measuredAt[i]} is before the project start date ${ctx.project.startDate}.`);
      continue;
    }
    if (at.ms > nowMs + FUTURE_TOLERANCE_MS) {
      f('422202', 'measured_at', `measured_at ${cols.measuredAt[i]} lies in the future.`, 'Check the instrument clock and the UTC offset of measured_at.');
      continue;
    }
    const b = ctx.bounds;
    if (b) {
      const out =
        x !== null && (x < b.minX || x > b.maxX) ? 'x' : y !== null && (y < b.minY || y > b.maxY) ? 'y' : z !== null && (z < b.minZ || z > b.maxZ) ? 'z' : null;
      if (out) {
        const [min, max] = out === 'x' ? [b.minX, b.maxX] : out === 'y' ? [b.minY, b.maxY] : [b.minZ, b.maxZ];
        f('422201', `values.${out}`, `${out} = ${out === 'x' ? x : out === 'y' ? y : z} m lies outside the project's plausible range ${min} … ${max} m.`);
        continue;
      }
    }
    const precisionFailure = checkPrecision([x, y, z, givenDx, givenDy, givenDz], num(cols.precision[i]), point);
    if (precisionFailure) {
      f('422205', precisionFailure.field, precisionFailure.detail);
      continue;
    }
    // Displacements are derived where missing and must agree with the coordinates where given.
    const tolerance = (point.precision ?? DEFAULT_AGREEMENT_MM) + 1e-6;
    const dx = displacement('x', x, point.ref.x, givenDx, tolerance);
    if (dx === undefined) continue;
    const dy = displacement('y', y, point.ref.y, givenDy, tolerance);
    if (dy === undefined) continue;
    const dz = displacement('z', z, point.ref.z, givenDz, tolerance);
    if (dz === undefined) continue;
    const far =
      Math.abs(dx ?? 0) > MAX_DISPLACEMENT_MM ? 'x' : Math.abs(dy ?? 0) > MAX_DISPLACEMENT_MM ? 'y' : Math.abs(dz ?? 0) > MAX_DISPLACEMENT_MM ? 'z' : null;
    if (far) {
      const given = far === 'x' ? givenDx : far === 'y' ? givenDy : givenDz;
      const d = far === 'x' ? dx : far === 'y' ? dy : dz;
      f(
        '422201',
        given !== null ? `values.d${far}` : `values.${far}`,
        `d${far} = ${d} mm${given !== null ? '' : ` (${far} against the point's reference)`} is beyond the plausible displacement of ±${MAX_DISPLACEMENT_MM} mm.`,
        given !== null
          ? 'Send displacements in millimetres (not micrometres), or correct the reading.'
          : "Send coordinates in metres in the point's coordinate system, near its reference coordinates (GET /v3/points/{point_id}).",
      );
      continue;
    }
    if (heldAlready(point, pointId, at.ms)) continue;
    ok.push({ index: i, point, ms: at.ms, offset: at.offset, x, y, z, dx, dy, dz, channels: null, ...geodeticStatus(x, y, z, dx, dy, dz, point) });
  }
  return { ok, failures };
}

/** Every value a record may hold, in the order records and events list them. */
export const VALUE_KEYS = [...COORDS, ...DISPLACEMENTS] as const;

/** `values` are x, y, z, dx, dy, dz (VALUE_KEYS order), null where absent. */
function checkPrecision(values: readonly (number | null)[], stated: number | null, point: PointInfo): { field: string; detail: string } | null {
  const required = point.precision;
  if (required === null || required <= 0) return null;
  if (stated !== null) {
    return stated > required * (1 + 1e-9)
      ? { field: 'precision', detail: `The record states a precision of ${stated} mm; point ${point.id} requires ${required} mm or finer.` }
      : null;
  }
  // Without a stated precision it is read from the digits written, cautiously: JSON numbers lose
  // trailing zeros (3512345.120 arrives as 3512345.12) and a zero tells nothing, so a correct
  // reading often looks one or two decimals short. A record is refused only when it has at least
  // three non-zero values and every one of them is at least 100 times coarser than required
  // (e.g. metres to one decimal for millimetre precision): a correct record looks like that about
  // once in a million. Clients that need the rule for every record state `precision`.
  let informative = 0;
  for (const v of values) if (v !== null && v !== 0) informative++;
  if (informative < 3) return null;
  // One value finer than the bound clears the record: usually the first one looked at.
  const bound = required * 100 * (1 - 1e-9);
  let finest = Infinity;
  let first: string | null = null;
  for (let k = 0; k < values.length; k++) {
    const value = values[k]!;
    if (value === null || value === 0) continue;
    first ??= VALUE_KEYS[k]!;
    // coordinates are metres, displacements millimetres
    finest = Math.min(finest, resolutionOf(value) * (k < 3 ? 1000 : 1));
    if (finest < bound) return null;
  }
  return { field: `values.${first}`, detail: `The values are given to ${finest} mm; point ${point.id} requires ${required} mm or finer.` };
}

/**
 * A geodetic record's status: its displacement thresholds (docs/rules.md#record-status, statusOf), then any
 * trigger levels on x … dz, the highest level winning; the channel is the one that gave it.
 */
export function geodeticStatus(
  x: number | null,
  y: number | null,
  z: number | null,
  dx: number | null,
  dy: number | null,
  dz: number | null,
  point: Pick<PointInfo, 'warning' | 'alarm' | 'triggerLevels'>,
): { status: Status; channel: string | null } {
  const status = statusOf(dx, dy, dz, point);
  let channel: string | null = null;
  if (status !== 'normal') {
    const ax = Math.abs(dx ?? 0),
      ay = Math.abs(dy ?? 0),
      az = Math.abs(dz ?? 0);
    channel = ax >= ay && ax >= az ? 'dx' : ay >= az ? 'dy' : 'dz';
  }
  if (point.triggerLevels.length === 0) return { status, channel };
  const values: Record<string, number | null> = { x, y, z, dx, dy, dz };
  const crossed = triggerStatus(point.triggerLevels, (c) => values[c]);
  return crossed && STATUS_RANK[crossed.level] > STATUS_RANK[status] ? { status: crossed.level, channel: crossed.channel } : { status, channel };
}

/** The largest of |dx|, |dy|, |dz| against the point's thresholds (0 or less: not configured). */
export function statusOf(dx: number | null, dy: number | null, dz: number | null, point: Pick<PointInfo, 'warning' | 'alarm'>): Status {
  const m = Math.max(Math.abs(dx ?? 0), Math.abs(dy ?? 0), Math.abs(dz ?? 0));
  if (point.alarm > 0 && m >= point.alarm) return 'alarm';
  if (point.warning > 0 && m >= point.warning) return 'warning';
  return 'normal';
}

/** Stored measurements of a point around the records of a write, oldest first (previous.ts). */
export interface StoredMeasurement {
  ms: number;
  dx: number | null;
  dy: number | null;
  dz: number | null;
}

/**
 * 422203: the change of any displacement component from the previous measurement of the point —
 * the nearest earlier valid one, stored or accepted earlier in this write — must not exceed the
 * point's abrupt-change limit. A stored record at the same instant is a duplicate (409003).
 * Returns the records that pass and the failures.
 */
export function checkAbruptChanges(records: CheckedRecord[], stored: Map<string, StoredMeasurement[]>): { ok: CheckedRecord[]; failures: RecordFailure[] } {
  const failures: RecordFailure[] = [];
  const refused = new Set<number>();
  const byPoint = new Map<string, CheckedRecord[]>();
  for (const r of records) {
    if (r.point.abruptLimit === null && !stored.has(r.point.id)) continue;
    const list = byPoint.get(r.point.id);
    if (list) list.push(r);
    else byPoint.set(r.point.id, [r]);
  }
  for (const [pointId, list] of byPoint) {
    list.sort((a, b) => a.ms - b.ms);
    const history = stored.get(pointId) ?? [];
    let h = 0;
    let prev: StoredMeasurement | null = null;
    for (const r of list) {
      while (h < history.length && history[h]!.ms < r.ms) prev = history[h++]!;
      if (h < history.length && history[h]!.ms === r.ms) {
        failures.push({
          index: r.index,
          code: '409003',
          field: `records[${r.index}].measured_at`,
          detail: `Point ${pointId} already has a record at ${new Date(r.ms).toISOString()}.`,
        });
        refused.add(r.index);
        continue;
      }
      const limit = r.point.abruptLimit;
      if (limit !== null && prev) {
        let worst: 'dx' | 'dy' | 'dz' | null = null;
        let worstDiff = 0;
        for (const k of DISPLACEMENTS) {
          const a = r[k],
            b = prev[k];
          if (a === null || b === null) continue;
          const diff = Math.abs(a - b);
          if (diff > worstDiff) [worst, worstDiff] = [k, diff];
        }
        if (worst && worstDiff > limit + 1e-9) {
          failures.push({
            index: r.index,
            code: '422203',
            field: `records[${r.index}].values.${worst}`,
            detail: `${worst} changed by ${round6(worstDiff)} mm from the previous measurement (${prev[worst]} → ${r[worst]} mm); the limit of point ${pointId} is ${limit} mm.`,
          });
          refused.add(r.index);
          continue;
        }
      }
      prev = r;
    }
  }
  return { ok: refused.size ? records.filter((r) => !refused.has(r.index)) : records, failures };
}
