/** Element types an array parameter can have (the `$n::<type>[]` of the statement). */
export type ArrayElementType = 'text' | 'int2' | 'float8' | 'timestamptz';

/**
 * A whole column passed as one array parameter, e.g. to `unnest($1::float8[], …)` for a multi-row
 * insert. Each driver encodes it its own way: `pg` in PostgreSQL's binary array format, so the
 * server copies numbers and instants instead of parsing their text (the text parsers were ~12 %
 * of PostgreSQL's CPU in a 1,000-row insert, ADR 0008); PGlite as an array literal. Elements:
 * strings (text), numbers (int2, float8), epoch milliseconds (timestamptz); null is NULL.
 */
export class ArrayParam {
  constructor(
    readonly type: ArrayElementType,
    readonly values: readonly (string | number | null)[],
  ) {}
}

export const arrayParam = (type: ArrayElementType, values: readonly (string | number | null)[]): ArrayParam => new ArrayParam(type, values);

const OID: Record<ArrayElementType, number> = { text: 25, int2: 21, float8: 701, timestamptz: 1184 };
const FIXED_SIZE: Partial<Record<ArrayElementType, number>> = { int2: 2, float8: 8, timestamptz: 8 };
/** 2000-01-01T00:00:00Z, PostgreSQL's timestamp epoch, in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 2 ** 32;

/**
 * PostgreSQL's binary array format (array_recv): ndim, has-nulls flag, element type, then per
 * dimension its length and lower bound, then each element as a length (-1 for NULL) and its bytes.
 */
export function encodeBinaryArray(p: ArrayParam): Buffer {
  const { values } = p;
  const n = values.length;
  const fixed = FIXED_SIZE[p.type];
  let hasNull = 0;
  // Room enough: a text element takes at most 3 UTF-8 bytes per UTF-16 unit; the unused end is cut.
  let size = 20 + 4 * n;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) hasNull = 1;
    else size += fixed ?? 3 * (v as string).length;
  }
  const b = Buffer.allocUnsafe(size);
  b.writeInt32BE(1, 0);
  b.writeInt32BE(hasNull, 4);
  b.writeInt32BE(OID[p.type], 8);
  b.writeInt32BE(n, 12);
  b.writeInt32BE(1, 16);
  let o = 20;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      b.writeInt32BE(-1, o);
      o += 4;
      continue;
    }
    switch (p.type) {
      case 'text': {
        const length = writeText(b, v as string, o + 4);
        b.writeInt32BE(length, o);
        o += 4 + length;
        break;
      }
      case 'float8':
        b.writeInt32BE(8, o);
        b.writeDoubleBE(v as number, o + 4);
        o += 12;
        break;
      case 'int2':
        b.writeInt32BE(2, o);
        b.writeInt16BE(v as number, o + 4);
        o += 6;
        break;
      case 'timestamptz': {
        // microseconds since 2000-01-01 as a signed 64-bit integer, written as two 32-bit halves
        // (exact: any instant within ±285 years is below 2^53 µs)
        const us = Math.round(((v as number) - PG_EPOCH_MS) * 1000);
        const hi = Math.floor(us / TWO_32);
        b.writeInt32BE(hi, o + 4);
        b.writeUInt32BE(us - hi * TWO_32, o + 8);
        b.writeInt32BE(8, o);
        o += 12;
        break;
      }
    }
  }
  // NULLs take no element bytes, and text usually fewer than reserved
  return o === size ? b : b.subarray(0, o);
}

/**
 * Writes a string as UTF-8 at `at`; returns the bytes written. Ids, statuses and most names are
 * ASCII and short: copying their characters here beats two calls into Node per element
 * (byteLength, then write), thousands of them per 1,000-row insert. Other text goes through write.
 */
function writeText(b: Buffer, v: string, at: number): number {
  const n = v.length;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c > 0x7f) return b.write(v, at, 'utf8');
    b[at + i] = c;
  }
  return n;
}

/** The same array as a PostgreSQL array literal, every text element quoted. */
export function encodeArrayLiteral(p: ArrayParam): string {
  const out = new Array<string>(p.values.length);
  let lastMs = NaN;
  let lastIso = '';
  for (let i = 0; i < p.values.length; i++) {
    const v = p.values[i];
    if (v === null || v === undefined) out[i] = 'NULL';
    else if (p.type === 'text') out[i] = `"${(v as string).replace(/["\\]/g, '\\$&')}"`;
    else if (p.type === 'timestamptz') {
      // consecutive records often share an instant
      if (v !== lastMs) lastIso = new Date((lastMs = v as number)).toISOString();
      out[i] = lastIso;
    } else out[i] = Object.is(v, -0) ? '-0' : String(v); // String(-0) is "0"
  }
  return `{${out.join(',')}}`;
}
