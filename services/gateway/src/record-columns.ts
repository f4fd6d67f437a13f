import { z } from 'zod';
import { Dictionary, type monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { validate } from './validate.js';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const POINT_ID = /^pt_[0-9a-z]{20}$/;
const value = z.number().optional();
/** A channel name as the sensor types spell them (docs/instruments.md). */
const CHANNEL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
export const values = z.object({ x: value, y: value, z: value, dx: value, dy: value, dz: value }).catchall(z.number()).meta({
  description: 'Coordinates x, y, z (m) and displacements dx, dy, dz (mm) of the geodetic types, or the channels of the point’s type (GET /v3/sensor-types).',
});
const KNOWN = new Set(['x', 'y', 'z', 'dx', 'dy', 'dz']);
const record = z.object({
  point_id: z.string().regex(POINT_ID, { error: 'a point id (pt_ and 20 lowercase letters or digits)' }),
  measured_at: z.string().regex(ISO_WITH_OFFSET, { error: 'an ISO 8601 date-time with a UTC offset, e.g. 2026-03-01T08:00:00Z' }),
  values,
  /** the precision the client states for this record, mm (422205 when coarser than the point requires) */
  precision: z.number().positive().optional(),
});

/** Synchronous writes take at most 1,000 records (MAX_RECORDS_PER_WRITE of the service). */
export const MAX_RECORDS_PER_WRITE = 1000;
/** A batch upload takes at most 100,000 records (MAX_RECORDS_PER_BATCH of the service). */
export const MAX_RECORDS_PER_BATCH = 100_000;
/** The write and batch bodies; the OpenAPI document shows these. */
export const recordBodies = {
  write: z.object({ records: z.array(record).min(1).max(MAX_RECORDS_PER_WRITE) }),
  batch: z.object({ records: z.array(record).min(1).max(MAX_RECORDS_PER_BATCH) }),
};

type RecordInput = z.infer<typeof record>;
type Columns = monitoringData.RecordColumns;

type Values = z.infer<typeof values>;

/**
 * The contract's columns in dictionary form (RecordColumns.point_index): each distinct point id
 * and measured_at is sent once, and each record says which. A write of 1,000 records names some
 * hundred points at a few instants, so this encodes a fraction of the strings (protobuf string
 * encoding was a tenth of the gateway's CPU per write) and the service decodes as few.
 */
class ColumnsBuilder {
  readonly cols: Columns;
  private readonly points = new Dictionary();
  private readonly instants = new Dictionary();
  private readonly channels = new Dictionary();

  constructor(n: number) {
    this.cols = {
      pointId: [],
      measuredAt: [],
      pointIds: this.points.values,
      pointIndex: new Array<number>(n),
      instants: this.instants.values,
      instantIndex: new Array<number>(n),
      x: new Array<number>(n),
      y: new Array<number>(n),
      z: new Array<number>(n),
      dx: new Array<number>(n),
      dy: new Array<number>(n),
      dz: new Array<number>(n),
      precision: [],
      channelNames: this.channels.values,
      channelOffset: [],
      channelIndex: [],
      channelValue: [],
    };
  }

  /**
   * Record i's instrument channels (the keys beyond x … dz). The offsets are filled lazily: a
   * write of total-station readings only never builds them (the columns then stay empty).
   */
  private putChannels(i: number, v: Record<string, unknown>, extra: boolean): void {
    const cols = this.cols;
    if (!extra && cols.channelOffset.length === 0) return;
    while (cols.channelOffset.length <= i) cols.channelOffset.push(cols.channelIndex.length);
    if (extra) {
      for (const k in v) {
        if (KNOWN.has(k)) continue;
        cols.channelIndex.push(this.channels.indexOf(k));
        cols.channelValue.push(v[k] as number);
      }
    }
  }

  /** Closes the channel offsets after the last record (n + 1 entries when any record had channels). */
  finish(n: number): Columns {
    const cols = this.cols;
    if (cols.channelOffset.length > 0) while (cols.channelOffset.length <= n) cols.channelOffset.push(cols.channelIndex.length);
    return cols;
  }

  hasPoint(pointId: string): boolean {
    return this.points.has(pointId);
  }

  hasInstant(measuredAt: string): boolean {
    return this.instants.has(measuredAt);
  }

  /** Record i into the columns (absent numbers are NaN); one place for both ways in. */
  put(i: number, pointId: string, measuredAt: string, v: Values, extra = false): void {
    const cols = this.cols;
    this.putChannels(i, v as Record<string, unknown>, extra);
    cols.pointIndex[i] = this.points.indexOf(pointId);
    cols.instantIndex[i] = this.instants.indexOf(measuredAt);
    cols.x[i] = v.x ?? NaN;
    cols.y[i] = v.y ?? NaN;
    cols.z[i] = v.z ?? NaN;
    cols.dx[i] = v.dx ?? NaN;
    cols.dy[i] = v.dy ?? NaN;
    cols.dz[i] = v.dz ?? NaN;
  }
}

/** A channel name that cannot be one (400003 naming it); whether the point's type has it is the service's call. */
function checkChannelName(name: string, i: number): void {
  if (!CHANNEL_NAME.test(name)) {
    throw new DomainError('422101', {
      field: `records[${i}].values.${name.slice(0, 64)}`,
      detail: `values.${name.slice(0, 64)} is not a channel of any sensor type.`,
      suggestion: 'Send the channels of the point’s sensor type (GET /v3/sensor-types).',
    });
  }
}

/** How many records the columns hold. */
export const recordCount = (cols: Columns): number => cols.pointIndex.length;

/** The point id of record i. */
export const pointIdOf = (cols: Columns, i: number): string => cols.pointIds[cols.pointIndex[i]!]!;

/** Request records (as the schema let them through) → the columns of the contract. */
function toColumns(records: RecordInput[]): Columns {
  const builder = new ColumnsBuilder(records.length);
  records.forEach((r, i) => {
    const extra = Object.keys(r.values).some((k) => !KNOWN.has(k));
    if (extra) for (const k of Object.keys(r.values)) if (!KNOWN.has(k)) checkChannelName(k, i);
    builder.put(i, r.point_id, r.measured_at, r.values, extra);
  });
  const cols = builder.finish(records.length);
  if (records.some((r) => r.precision !== undefined)) cols.precision = records.map((r) => r.precision ?? NaN);
  return cols;
}

const isPlainObject = (o: unknown): o is Record<string, unknown> => typeof o === 'object' && o !== null && Object.getPrototypeOf(o) === Object.prototype;
/** An absent value, or a number the schema takes (JSON numbers are finite). */
const optionalNumber = (v: unknown): v is number | undefined => v === undefined || (typeof v === 'number' && Number.isFinite(v));

/**
 * The columns straight from the parsed body when every record is plainly well-formed, or null to
 * let the schema decide. It accepts only what the schema accepts, so it changes no answer: any
 * record it has doubts about sends the whole body through zod, which finds and reports the
 * problem. For a 1,000-record write it saves zod's copy of every record and value object — about
 * a sixth of the gateway's CPU per write, much of it garbage collection (bench/ingest profiles).
 */
function fastColumns(body: Record<string, unknown>, max: number): Columns | null {
  const records = body.records;
  if (!Array.isArray(records) || records.length === 0 || records.length > max) return null;
  const n = records.length;
  const builder = new ColumnsBuilder(n);
  let precision: number[] | null = null;
  for (let i = 0; i < n; i++) {
    const r: unknown = records[i];
    if (!isPlainObject(r)) return null;
    const { point_id: pointId, measured_at: measuredAt, values: v, precision: p } = r;
    // a point id or instant already in the dictionary passed its pattern at its first record
    if (typeof pointId !== 'string' || !(builder.hasPoint(pointId) || POINT_ID.test(pointId))) return null;
    if (typeof measuredAt !== 'string' || !(builder.hasInstant(measuredAt) || ISO_WITH_OFFSET.test(measuredAt)) || !isPlainObject(v)) return null;
    if (!optionalNumber(v.x) || !optionalNumber(v.y) || !optionalNumber(v.z) || !optionalNumber(v.dx) || !optionalNumber(v.dy) || !optionalNumber(v.dz))
      return null;
    // Instrument channels: keys beyond x … dz. Counting the keys is cheap; only a record with
    // more of them than it has of x … dz is looked at key by key.
    let known = 0;
    for (const k in v) if (KNOWN.has(k)) known++;
    let extra = false;
    if (Object.keys(v).length > known) {
      for (const k in v) if (!KNOWN.has(k) && (!CHANNEL_NAME.test(k) || typeof v[k] !== 'number' || !Number.isFinite(v[k]))) return null;
      extra = true;
    }
    if (p !== undefined) {
      if (typeof p !== 'number' || !(p > 0) || !Number.isFinite(p)) return null;
      (precision ??= new Array<number>(n).fill(NaN))[i] = p;
    }
    builder.put(i, pointId, measuredAt, v as Values, extra);
  }
  const cols = builder.finish(n);
  if (precision) cols.precision = precision;
  return cols;
}

/**
 * The records of a data write (`write`, at most 1,000) or batch upload (`batch`) as contract
 * columns; a malformed body is refused with the schema's error (422101/422102/400003/400004 and
 * the offending field, e.g. `records[3].measured_at`).
 */
export function recordColumns(kind: 'write' | 'batch', body: Record<string, unknown>): Columns {
  return fastColumns(body, kind === 'write' ? MAX_RECORDS_PER_WRITE : MAX_RECORDS_PER_BATCH) ?? toColumns(validate(recordBodies[kind], body, 'body').records);
}
