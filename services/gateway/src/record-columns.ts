import { z } from 'zod';
import { Dictionary, type monitoringData } from '@mp/contracts';
import { validate } from './validate.js';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const POINT_ID = /^pt_[0-9a-z]{20}$/;
const value = z.number().optional();
export const values = z.object({ x: value, y: value, z: value, dx: value, dy: value, dz: value });
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
    };
  }

  hasPoint(pointId: string): boolean {
    return this.points.has(pointId);
  }

  hasInstant(measuredAt: string): boolean {
    return this.instants.has(measuredAt);
  }

  /** Record i into the columns (absent numbers are NaN); one place for both ways in. */
  put(i: number, pointId: string, measuredAt: string, v: Values): void {
    const cols = this.cols;
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

/** How many records the columns hold. */
export const recordCount = (cols: Columns): number => cols.pointIndex.length;

/** The point id of record i. */
export const pointIdOf = (cols: Columns, i: number): string => cols.pointIds[cols.pointIndex[i]!]!;

/** Request records (as the schema let them through) → the columns of the contract. */
function toColumns(records: RecordInput[]): Columns {
  const builder = new ColumnsBuilder(records.length);
  records.forEach((r, i) => builder.put(i, r.point_id, r.measured_at, r.values));
  const cols = builder.cols;
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
    if (p !== undefined) {
      if (typeof p !== 'number' || !(p > 0) || !Number.isFinite(p)) return null;
      (precision ??= new Array<number>(n).fill(NaN))[i] = p;
    }
    builder.put(i, pointId, measuredAt, v as Values);
  }
  if (precision) builder.cols.precision = precision;
  return builder.cols;
}

/**
 * The records of a data write (`write`, at most 1,000) or batch upload (`batch`) as contract
 * columns; a malformed body is refused with the schema's error (422101/422102/400003/400004 and
 * the offending field, e.g. `records[3].measured_at`).
 */
export function recordColumns(kind: 'write' | 'batch', body: Record<string, unknown>): Columns {
  return fastColumns(body, kind === 'write' ? MAX_RECORDS_PER_WRITE : MAX_RECORDS_PER_BATCH) ?? toColumns(validate(recordBodies[kind], body, 'body').records);
}
