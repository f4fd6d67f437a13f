import { ArrayParam } from './array-param.js';

/**
 * A text parameter given as its UTF-8 bytes, for large text the caller has encoded already (an
 * event's JSON, which also goes to the event transport as bytes): `pg` sends the bytes as the
 * text's binary form, so neither the driver nor PostgreSQL converts ~300 KB again; PGlite gets
 * the string.
 */
export class Utf8Param {
  constructor(readonly bytes: Uint8Array) {}
}

export const utf8Param = (bytes: Uint8Array): Utf8Param => new Utf8Param(bytes);

/** How a driver sends the parameters that are not plain values. */
export interface ParamEncoders {
  array(p: ArrayParam): unknown;
  utf8(p: Utf8Param): unknown;
}

/** The parameters with every ArrayParam and Utf8Param encoded for the driver; the same array when there is none. */
export function encodeParams(params: unknown[] | undefined, encoders: ParamEncoders): unknown[] | undefined {
  if (!params) return params;
  let out: unknown[] | null = null;
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p instanceof ArrayParam) (out ??= params.slice())[i] = encoders.array(p);
    else if (p instanceof Utf8Param) (out ??= params.slice())[i] = encoders.utf8(p);
  }
  return out ?? params;
}

/** The bytes as a Buffer without copying them. */
export const bufferOf = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
