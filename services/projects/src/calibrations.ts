import { sensorTypeSpec, type projects } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { CALIBRATION_FIELDS, compileExpression, isExpressionProblem, MAX_EXPRESSION_LENGTH, newId } from '@mp/kit';
import { checkDateTime } from './validation.js';

// Dated calibrations and derived channels of a point (docs/instruments.md, ADR 0116, ADR 0117).

/** Calibrations a point holds at most: a recalibration a month for eight years. */
export const MAX_CALIBRATIONS = 100;
/** Derived channels a point holds at most. */
export const MAX_DERIVED_CHANNELS = 16;
/** A calibration given at point creation without valid_from applies to every reading. */
export const BEGINNING = '1970-01-01T00:00:00.000Z';

const bad = (code: string, field: string, detail: string, suggestion?: string) =>
  new DomainError(code, { field, detail, ...(suggestion ? { suggestion } : {}) });

/** The coefficient fields, snake_case (API) → camelCase (messages). */
const COEFFICIENTS = {
  factor: 'factor',
  offset: 'offset',
  a: 'a',
  b: 'b',
  c: 'c',
  gauge_factor: 'gaugeFactor',
  zero_reading: 'zeroReading',
  temperature_factor: 'temperatureFactor',
  zero_temperature: 'zeroTemperature',
} as const;
type CoefficientKey = keyof typeof COEFFICIENTS;

/** The raw channel a type's calibration converts and the measured channel it gives, or null. */
export function convertedChannel(sensorType: string): { raw: string; channel: string } | null {
  const spec = sensorTypeSpec(sensorType);
  const c = spec?.channels.find((ch) => ch.from !== undefined);
  return c ? { raw: c.from!, channel: c.name } : null;
}

export interface CheckedCalibration {
  method: string;
  coefficients: Partial<Record<CoefficientKey, number>>;
  /** ISO instant (UTC) */
  validFrom: string;
}

/**
 * A calibration for a point of `sensorType` (`field` prefixes every named field: `calibration`
 * at point creation, `` on POST /points/{id}/calibrations): the type must have a raw channel
 * (422204), the method be known (422103; vibrating_wire only converts a frequency), each
 * required coefficient present (422101), none foreign to the method (422204), all finite (422105),
 * a temperature_factor with its zero_temperature (422101), valid_from an instant with an offset
 * (400004; required unless `defaultValidFrom`).
 */
export function checkCalibration(
  input: projects.CalibrationInput | undefined,
  sensorType: string,
  prefix: string,
  defaultValidFrom?: string,
): CheckedCalibration {
  const f = (name: string) => (prefix ? `${prefix}.${name}` : name);
  if (!input) throw bad('422101', prefix || 'method', 'A calibration is required.');
  const converted = convertedChannel(sensorType);
  if (!converted) {
    throw bad(
      '422204',
      prefix || 'point_id',
      `A ${sensorType} has no raw channel to convert, so it takes no calibration; its readings are sent in engineering units.`,
      'Send calibrations only for types with a raw channel (converted_from in GET /v3/sensor-types), e.g. a piezometer’s frequency.',
    );
  }
  const spec = CALIBRATION_FIELDS[input.method];
  if (!input.method) throw bad('422101', f('method'), 'method is required: linear, polynomial or vibrating_wire.');
  if (!spec) {
    throw bad('422103', f('method'), `method must be one of ${Object.keys(CALIBRATION_FIELDS).join(', ')}; got ${JSON.stringify(input.method.slice(0, 40))}.`);
  }
  if (input.method === 'vibrating_wire' && converted.raw !== 'frequency') {
    throw bad(
      '422103',
      f('method'),
      `A ${sensorType}'s raw channel is ${converted.raw}, not a vibrating wire's frequency.`,
      'Use the linear (or polynomial) method, e.g. { "method": "linear", "factor": 0.2, "offset": 0 } for 0.2 mm per tip.',
    );
  }
  const coefficients: Partial<Record<CoefficientKey, number>> = {};
  for (const key of Object.keys(COEFFICIENTS) as CoefficientKey[]) {
    const value = input[COEFFICIENTS[key]];
    const allowed = spec.required.includes(key) || spec.optional.includes(key);
    if (value === undefined) {
      if (spec.required.includes(key)) {
        throw bad('422101', f(key), `${key} is required by a ${input.method} calibration (it takes ${[...spec.required, ...spec.optional].join(', ')}).`);
      }
      continue;
    }
    if (!allowed) {
      throw bad(
        '422204',
        f(key),
        `${key} is not a coefficient of a ${input.method} calibration; it takes ${[...spec.required, ...spec.optional].join(', ')}.`,
        'Send only the coefficients of the chosen method (docs/instruments.md#calibrations).',
      );
    }
    if (!Number.isFinite(value)) throw bad('422105', f(key), `${key} must be a finite number.`);
    coefficients[key] = value;
  }
  if ((coefficients.temperature_factor === undefined) !== (coefficients.zero_temperature === undefined)) {
    const missing = coefficients.temperature_factor === undefined ? 'temperature_factor' : 'zero_temperature';
    throw bad(
      '422101',
      f(missing),
      'A temperature correction needs both temperature_factor (K) and zero_temperature (T₀).',
      'Send both, or neither for no temperature correction.',
    );
  }
  let validFrom: string;
  if (input.validFrom === undefined) {
    if (defaultValidFrom === undefined) throw bad('422101', f('valid_from'), 'valid_from is required: the instant from which the calibration applies.');
    validFrom = defaultValidFrom;
  } else validFrom = checkDateTime(input.validFrom, f('valid_from'));
  return { method: input.method, coefficients, validFrom };
}

/** A stored calibration row. */
export interface CalibrationRow {
  id: string;
  point_id: string;
  method: string;
  coefficients: Partial<Record<CoefficientKey, number>> | string;
  valid_from: string | Date;
  created_by: string;
  created_at: string | Date;
}

const iso = (v: string | Date) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString());

export function toCalibration(row: CalibrationRow, sensorType: string): projects.Calibration {
  const c = typeof row.coefficients === 'string' ? (JSON.parse(row.coefficients) as CalibrationRow['coefficients'] & object) : row.coefficients;
  const converted = convertedChannel(sensorType);
  const out: projects.Calibration = {
    id: row.id,
    pointId: row.point_id,
    method: row.method,
    validFrom: iso(row.valid_from),
    createdBy: row.created_by,
    createdAt: iso(row.created_at),
    rawChannel: converted?.raw ?? '',
    channel: converted?.channel ?? '',
  };
  for (const key of Object.keys(COEFFICIENTS) as CoefficientKey[]) if (c[key] !== undefined) out[COEFFICIENTS[key]] = c[key];
  return out;
}

const CALIBRATION_COLUMNS = 'id, point_id, method, coefficients, valid_from, created_by, created_at';

/** Inserts a checked calibration; 422204 when the point already has one valid from that instant, 400003 beyond MAX_CALIBRATIONS. */
export async function insertCalibration(
  tx: Queryable,
  ctx: CallerContext,
  pointId: string,
  cal: CheckedCalibration,
  now: string,
  prefix: string,
): Promise<CalibrationRow> {
  const { rows: counted } = await tx.query<{ n: number; same: number }>(
    'SELECT count(*)::int AS n, count(*) FILTER (WHERE valid_from = $2)::int AS same FROM point_calibrations WHERE point_id = $1',
    [pointId, cal.validFrom],
  );
  if (counted[0]!.same > 0) {
    throw bad(
      '422204',
      prefix ? `${prefix}.valid_from` : 'valid_from',
      `The point already has a calibration valid from ${cal.validFrom}.`,
      'Send a different valid_from (a later one supersedes the earlier from its own instant on).',
    );
  }
  if (counted[0]!.n >= MAX_CALIBRATIONS) {
    throw bad('400003', 'calibration', `A point holds at most ${MAX_CALIBRATIONS} calibrations.`);
  }
  const { rows } = await tx.query<CalibrationRow>(
    `INSERT INTO point_calibrations (id, point_id, tenant_id, environment, method, coefficients, valid_from, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${CALIBRATION_COLUMNS}`,
    [newId('calibration'), pointId, ctx.tenantId, ctx.environment, cal.method, JSON.stringify(cal.coefficients), cal.validFrom, ctx.principalId, now],
  );
  return rows[0]!;
}

/** A point's calibrations, newest valid_from first. */
export async function calibrationsOf(q: Queryable, pointIds: readonly string[]): Promise<Map<string, CalibrationRow[]>> {
  const out = new Map<string, CalibrationRow[]>();
  if (pointIds.length === 0) return out;
  const { rows } = await q.query<CalibrationRow>(
    `SELECT ${CALIBRATION_COLUMNS} FROM point_calibrations WHERE point_id = ANY($1::text[]) ORDER BY point_id, valid_from DESC`,
    [pointIds],
  );
  for (const r of rows) {
    const list = out.get(r.point_id);
    if (list) list.push(r);
    else out.set(r.point_id, [r]);
  }
  return out;
}

const CHANNEL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * `derived_channels` of a point of `sensorType` (ADR 0117): at most MAX_DERIVED_CHANNELS, for
 * the types without coordinates (422204 on a geodetic type); each a new lowercase name (422103
 * when it is not one, or collides with a channel of the type or an earlier derived channel), a
 * unit (1 to 16 characters), and an expression over the type's channels and the derived
 * channels before it (422103 naming `derived_channels[i].expression`; 400003 over 500 characters).
 */
export function checkDerivedChannels(items: readonly projects.DerivedChannel[], sensorType: string): projects.DerivedChannel[] {
  if (items.length === 0) return [];
  const spec = sensorTypeSpec(sensorType);
  if (!spec || spec.geodetic) {
    throw bad(
      '422204',
      'derived_channels',
      `Derived channels are computed from an instrument's channels; a ${sensorType} keeps its survey values x … dz.`,
      'Send derived_channels for points of the instrument types (GET /v3/sensor-types, geodetic: false).',
    );
  }
  if (items.length > MAX_DERIVED_CHANNELS) {
    throw bad('400003', 'derived_channels', `A point takes at most ${MAX_DERIVED_CHANNELS} derived channels; got ${items.length}.`);
  }
  const known = new Set(spec.channels.map((c) => c.name));
  return items.map((d, i) => {
    const field = `derived_channels[${i}]`;
    if (!CHANNEL_NAME.test(d.name ?? '')) {
      throw bad(
        '422103',
        `${field}.name`,
        'A derived channel’s name is 1 to 64 lowercase letters, digits or underscores, starting with a letter.',
        'Name it like the type’s channels, e.g. "head_m".',
      );
    }
    if (known.has(d.name)) {
      throw bad(
        '422103',
        `${field}.name`,
        `${d.name} is already a channel of a ${sensorType} or an earlier derived channel.`,
        'Give the derived channel a name of its own.',
      );
    }
    if (!d.unit || d.unit.length > 16) throw bad('422101', `${field}.unit`, 'A derived channel needs a unit of 1 to 16 characters, e.g. "m" or "kPa".');
    if ((d.expression ?? '').length > MAX_EXPRESSION_LENGTH) {
      throw bad('400003', `${field}.expression`, `An expression is at most ${MAX_EXPRESSION_LENGTH} characters long.`);
    }
    const compiled = compileExpression(d.expression ?? '', known);
    if (isExpressionProblem(compiled)) throw bad('422103', `${field}.expression`, compiled.problem, compiled.suggestion);
    known.add(d.name);
    return { name: d.name, unit: d.unit, expression: d.expression };
  });
}

/** The stored derived channels (jsonb arrives parsed, or as text on some drivers). */
export function derivedChannelsOf(v: projects.DerivedChannel[] | string | null | undefined): projects.DerivedChannel[] {
  if (v === null || v === undefined) return [];
  return typeof v === 'string' ? (JSON.parse(v) as projects.DerivedChannel[]) : v;
}
